// The module that bench/activation.js passes to the VS Code extension host as
// `extensionTestsPath`: the host calls run() once the window is up, and the workbench reports 0
// (resolved) or 1 (rejected) back to the launcher. Plain CommonJS, loaded as is (no build step).
//
// It activates twining.twining-vscode, asks the Agents view for its first children (which needs the
// engine), and writes what it measured as JSON to the file named by TWINING_BENCH_ACTIVATION_OUT:
//   runnerStartEpochMs     Date.now() when run() was called (for the launcher's own timings)
//   hostUptimeAtRunnerMs   performance.now() then: how long the extension host process had been up
//   wasActiveAtRunnerStart whether VS Code had already activated the extension (workspaceContains)
//   runnerToActivatedMs    wall time from run() to activate() resolving
//   activationMs           time spent in the extension's activate() (reported by its API)
//   bundleLoadMs           time the extension bundle took to evaluate (reported by its API)
//   engineLoadedBeforeAgents  whether dist/core.js was already loaded before the Agents view asked
//   agentsFirstChildrenMs  duration of the first getChildren() of the Agents view's provider
//   runnerToAgentsMs       wall time from run() to those children being produced
//   engineLoadMs           time loading the engine (dist/core.js) took, on first use
//   refreshMs              one api.refresh() after that (re-read every folder, re-render the views)
//   agents                 the Agents view's top-level labels (a sanity check of what was read)
'use strict';

const fs = require('fs');
const path = require('path');

const EXTENSION_ID = 'twining.twining-vscode';

function labelOf(item) {
  const label = item && item.label;
  return typeof label === 'string' ? label : (label && label.label) || '';
}

async function measure() {
  const t0 = performance.now();
  const result = { runnerStartEpochMs: Date.now(), hostUptimeAtRunnerMs: t0 };
  const vscode = require('vscode');

  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not loaded`);
  result.wasActiveAtRunnerStart = ext.isActive;
  const exported = await ext.activate();
  // The measurements come from the test hooks (exported when TWINING_BENCH_ACTIVATION_OUT is set).
  const api = exported.testing;
  if (!api) throw new Error('the extension did not export its test hooks');
  result.runnerToActivatedMs = performance.now() - t0;
  result.activationMs = api.activationMs;
  result.bundleLoadMs = api.bundleLoadMs;

  result.engineLoadedBeforeAgents = api.engineLoadMs() !== undefined;
  const a0 = performance.now();
  const nodes = (await api.providers.agents.getChildren()) || [];
  const a1 = performance.now();
  result.agentsFirstChildrenMs = a1 - a0;
  result.runnerToAgentsMs = a1 - t0;
  result.agents = nodes.map(node => labelOf(api.providers.agents.getTreeItem(node)));
  result.engineLoadMs = api.engineLoadMs();

  const r0 = performance.now();
  await api.refresh();
  result.refreshMs = performance.now() - r0;
  if (result.engineLoadMs === undefined) result.engineLoadMs = api.engineLoadMs();
  return result;
}

function write(data) {
  const file = process.env.TWINING_BENCH_ACTIVATION_OUT;
  if (!file) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(data, null, 2));
}

/** A test-runner entry that writes what `measure` returns (or its error) to TWINING_BENCH_ACTIVATION_OUT. */
function runnerOf(measure) {
  return async () => {
    try {
      write(await measure());
    } catch (error) {
      write({ error: (error && error.stack) || String(error) });
      throw error;
    }
  };
}

module.exports = { run: runnerOf(measure), runnerOf };
