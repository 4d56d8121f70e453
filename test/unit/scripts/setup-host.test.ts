/**
 * The environment of the nested installs in scripts/setup-host.js. Under `npm test` / `npm start`
 * the outer npm exports its configuration as npm_config_* variables, and a nested npm reads those
 * as its own configuration: code-server's postinstall then saw the outer npm's user agent
 * ("node/v20") and refused Node 24. These tests run real npm processes: an outer `npm run` whose
 * environment is captured, then a nested `npm install` (of a package whose postinstall records what
 * it sees) in the environment installEnv builds from it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { tempProject } from '../../support/tmp';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { installEnv } = require('../../../scripts/setup-host') as {
  installEnv: (outer: NodeJS.ProcessEnv, o?: { nodeBinDir?: string; extra?: Record<string, string> }) => Record<string, string>;
};

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const OUTER_AGENT = 'npm/10.0.0 node/v20.0.0 linux x64 workspaces/false outer-marker';

/** Writes `folder/package.json` with the given scripts. */
function probePackage(folder: string, scripts: Record<string, string>): string {
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: path.basename(folder), version: '1.0.0', private: true, scripts }));
  return folder;
}

const DUMP_ENV = `node -e "require('fs').writeFileSync('seen.json', JSON.stringify(process.env))"`;

/** The environment a script sees under a real `npm run` (the way `npm test` runs scripts/test.js). */
function outerNpmEnv(root: string): NodeJS.ProcessEnv {
  const outer = probePackage(path.join(root, 'outer'), { dump: DUMP_ENV });
  const r = spawnSync(npm, ['run', '--silent', `--user-agent=${OUTER_AGENT}`, 'dump'], { cwd: outer, encoding: 'utf8' });
  assert.equal(r.status, 0, `npm run failed: ${r.stderr}`);
  return JSON.parse(fs.readFileSync(path.join(outer, 'seen.json'), 'utf8'));
}

test('an npm script inherits the outer npm configuration (the hazard installEnv removes)', () => {
  const env = outerNpmEnv(tempProject('npm-env'));
  assert.equal(env.npm_config_user_agent, OUTER_AGENT);
  assert.ok(env.npm_lifecycle_event === 'dump' && env.npm_package_name === 'outer');
  assert.ok(
    String(env.PATH)
      .split(path.delimiter)
      .some(d => d.endsWith(path.join('node_modules', '.bin'))),
    'npm puts node_modules/.bin on PATH',
  );
});

test('installEnv drops the npm_* variables but the registry settings, NODE and INIT_CWD, and the outer npm PATH entries; Node 24 first on PATH', () => {
  const outer: NodeJS.ProcessEnv = {
    HOME: '/home/someone',
    PATH: [
      '/repo/node_modules/.bin',
      '/node_modules/.bin',
      '/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin',
      '/usr/local/bin',
      '/usr/bin',
    ].join(path.delimiter),
    npm_config_user_agent: OUTER_AGENT,
    npm_config_nodedir: '/usr',
    npm_config_local_prefix: '/repo',
    npm_config_node_gyp: '/usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js',
    NPM_CONFIG_PREFIX: '/somewhere',
    npm_config_registry: 'https://registry.example.test/',
    NPM_CONFIG_HTTPS_PROXY: 'http://proxy.example.test:3128',
    'npm_config_@acme:registry': 'https://npm.acme.example.test/',
    npm_package_name: 'twining-vscode',
    npm_lifecycle_event: 'test',
    npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
    npm_node_execpath: '/usr/bin/node',
    NODE: '/usr/bin/node',
    INIT_CWD: '/repo',
    TWINING_HOST_CACHE: '/tmp/cache',
  };
  const env = installEnv(outer, { nodeBinDir: '/tools/node24/bin', extra: { npm_config_nodedir: '/tools/node24' } });
  assert.deepEqual(env, {
    HOME: '/home/someone',
    PATH: ['/tools/node24/bin', '/usr/local/bin', '/usr/bin'].join(path.delimiter),
    TWINING_HOST_CACHE: '/tmp/cache',
    // How to reach the registry stays: a private registry or proxy set in the environment applies.
    npm_config_registry: 'https://registry.example.test/',
    NPM_CONFIG_HTTPS_PROXY: 'http://proxy.example.test:3128',
    'npm_config_@acme:registry': 'https://npm.acme.example.test/',
    npm_config_nodedir: '/tools/node24',
  });
  assert.equal(outer.npm_config_user_agent, OUTER_AGENT, 'the outer environment is left as it was');
});

test('a nested npm install in installEnv sees its own user agent and node, not the outer npm', () => {
  const root = tempProject('nested-install');
  const outer = outerNpmEnv(root);
  // The "Node 24" of the test: a bin folder whose `node` is this Node, first on PATH.
  const nodeBin = path.join(root, 'node24', 'bin');
  fs.mkdirSync(nodeBin, { recursive: true });
  fs.symlinkSync(process.execPath, path.join(nodeBin, 'node'));
  const pkg = probePackage(path.join(root, 'tools'), { postinstall: DUMP_ENV });
  const env = installEnv(outer, { nodeBinDir: nodeBin, extra: { npm_config_nodedir: path.join(root, 'node24') } });
  const r = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--offline'], { cwd: pkg, env, encoding: 'utf8' });
  assert.equal(r.status, 0, `nested npm install failed: ${r.stderr}`);
  const seen = JSON.parse(fs.readFileSync(path.join(pkg, 'seen.json'), 'utf8'));
  assert.equal(seen.npm_lifecycle_event, 'postinstall');
  assert.doesNotMatch(seen.npm_config_user_agent, /outer-marker/, 'the postinstall saw the outer npm user agent');
  assert.match(seen.npm_config_user_agent, new RegExp(`node/${process.version.replace(/\./g, '\\.')}\\b`));
  assert.equal(seen.npm_config_nodedir, path.join(root, 'node24'));
  assert.equal(seen.npm_package_name, 'tools');
  const dirs = String(seen.PATH).split(path.delimiter);
  assert.ok(dirs.indexOf(nodeBin) >= 0, `${nodeBin} is not on the postinstall's PATH: ${seen.PATH}`);
  assert.ok(!dirs.includes(path.join(root, 'outer', 'node_modules', '.bin')), 'the outer package bin folder leaked into the nested install');
  // What code-server's postinstall runs as `node`: the first on PATH after npm's own entries.
  const which = spawnSync('sh', ['-c', 'command -v node'], { env, encoding: 'utf8' });
  assert.equal(which.stdout.trim(), path.join(nodeBin, 'node'));
});
