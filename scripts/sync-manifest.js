#!/usr/bin/env node
// Writes the generated parts of package.json: `contributes.languageModelTools`, one tool per core
// operation, whose `inputSchema` is the JSON Schema of the operation's zod schema (see
// src/extension/manifest.ts), and the chat instructions and prompt file the extension contributes
// (media/chat/, from the MCP server's instructions). With --check it changes nothing and exits 1
// when either is out of date (test/unit/extension/manifest.test.ts and agents/setup/agent-setup.test.ts check the same).
//
//   node scripts/sync-manifest.js          update package.json
//   node scripts/sync-manifest.js --check  verify only
'use strict';

const fs = require('fs');
const path = require('path');
const Module = require('module');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..');
const manifestPath = path.join(root, 'package.json');
const check = process.argv.includes('--check');

/** Bundles src/extension/manifest.ts in memory and loads it (node_modules stay external). */
function loadGenerator() {
  const entry = path.join(root, 'src', 'extension', 'manifest.ts');
  const result = esbuild.buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    write: false,
    logLevel: 'warning',
  });
  const code = result.outputFiles[0].text;
  const mod = new Module(entry, module);
  mod.filename = entry;
  mod.paths = Module._nodeModulePaths(path.dirname(entry));
  mod._compile(code, entry);
  return mod.exports;
}

function main() {
  const { languageModelTools, chatFiles } = loadGenerator();
  const staleFiles = Object.entries(chatFiles()).filter(([file, text]) => {
    const full = path.join(root, file);
    return !fs.existsSync(full) || fs.readFileSync(full, 'utf8') !== text;
  });
  if (check && staleFiles.length) {
    console.error(`sync-manifest: ${staleFiles.map(([f]) => f).join(', ')} out of date; run: node scripts/sync-manifest.js`);
    process.exit(1);
  }
  for (const [file, text] of staleFiles) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
    console.log(`sync-manifest: wrote ${file}`);
  }
  const text = fs.readFileSync(manifestPath, 'utf8');
  const pkg = JSON.parse(text);
  const wanted = languageModelTools();
  const current = (pkg.contributes && pkg.contributes.languageModelTools) || [];
  const same = JSON.stringify(current) === JSON.stringify(wanted);
  if (check) {
    if (same) {
      console.log(`sync-manifest: package.json is up to date (${wanted.length} language model tools)`);
      return;
    }
    const names = new Set([...current.map(t => t.name), ...wanted.map(t => t.name)]);
    const differing = [...names].filter(name => {
      const a = current.find(t => t.name === name);
      const b = wanted.find(t => t.name === name);
      return JSON.stringify(a) !== JSON.stringify(b);
    });
    console.error(`sync-manifest: contributes.languageModelTools in package.json is out of date (${differing.join(', ')}); run: node scripts/sync-manifest.js`);
    process.exit(1);
  }
  if (same) {
    console.log('sync-manifest: nothing to change');
    return;
  }
  pkg.contributes = pkg.contributes || {};
  pkg.contributes.languageModelTools = wanted;
  const trailing = text.endsWith('\n') ? '\n' : '';
  fs.writeFileSync(manifestPath, JSON.stringify(pkg, null, 2) + trailing);
  console.log(`sync-manifest: wrote ${wanted.length} language model tools to package.json`);
}

main();
