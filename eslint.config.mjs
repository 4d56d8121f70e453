// ESLint (flat config) with typescript-eslint's recommended rules, and its type-checked rules on the
// TypeScript of src/ and test/ (a forgotten `await` or a promise passed where a callback returns
// nothing is an error), for src/, test/ and bench/.
// Formatting is Prettier's job (.prettierrc.json); `npm test` runs both (the "lint" suite).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'out/', 'node_modules/', '.test-output/', 'test/fixtures/', '**/*.vsix'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked.map(config => ({ ...config, files: ['**/*.ts'] })),
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // A promise is awaited or handed to a handler of its failure (in the extension, log.ts's
          // inBackground or followUp); `void promise` would drop the failure silently, so it is refused.
          ignoreVoid: false,
          // node:test's describe() and test() return promises that the runner itself awaits.
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'test', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // Files that disable a rule this configuration does not enable stay as their authors wrote them.
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: {
        console: 'readonly',
        process: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        __filename: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        performance: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        NodeJS: 'readonly',
      },
    },
    rules: {
      // Unused arguments named _x are deliberate (interfaces, callbacks).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // The engine is loaded lazily with a computed require (model/engine-loader.ts), and the CLI
      // and tests load bundles the same way: require() is chosen, not legacy.
      '@typescript-eslint/no-require-imports': 'off',
      // `catch {}` is how a best-effort step says "ignore"; other empty blocks are still errors.
      'no-empty': ['error', { allowEmptyCatch: true }],
      // The schemas reject control characters on purpose (agent ids, scopes).
      'no-control-regex': 'off',
      // Errors rethrown with a new message already carry the cause's message in it.
      'preserve-caught-error': 'off',
      // A `let` given its default before a loop or try reads more plainly than one left undefined.
      'no-useless-assignment': 'off',
    },
  },
  {
    // Files are split by concept, not by length: past 400 lines a file of src/ is worth a look
    // (one concept or several?), so the cap is a warning ESLint prints, never a failure.
    files: ['src/**/*.ts'],
    rules: { 'max-lines': ['warn', { max: 400, skipBlankLines: false, skipComments: false }] },
  },
  {
    // Tests and benchmarks read untyped JSON (TAP, CLI output, files on disk, MCP answers): `any`
    // and its use are how they look into it; the promise rules above still apply to them.
    files: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Plain Node scripts (CommonJS): require() is how they load modules.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
