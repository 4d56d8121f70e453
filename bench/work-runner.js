// Loaded in the extension host (as the test runner) by bench/activation.js --work: the work the
// extension does for one change while the Handoffs view lists 200 handoffs. For each change, the
// engine refreshes that read the files (`engine.work.refreshes`) and verifications (counted on the
// engine instance, so older builds of the extension can be measured the same way), the view
// reloads (whole redraws), and the milliseconds from the write
// until the extension is idle again. Writes its numbers to TWINING_BENCH_ACTIVATION_OUT.
'use strict';

const { execFile } = require('child_process');

const EXTENSION_ID = 'twining.twining-vscode';
const VIEWS = ['agents', 'delegations', 'handoffs'];

function cli(op, folder, input) {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [process.env.TWINING_BENCH_CLI, op, '--dir', folder, '--json', '--input', JSON.stringify(input)], (error, _out, stderr) =>
      error ? reject(new Error(stderr || error.message)) : resolve(),
    ),
  );
}

async function measure() {
  const vscode = require('vscode');
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  const exported = await ext.activate();
  // Test hooks where the build has them apart; older builds exported them directly.
  const api = exported.testing || exported;
  const root = vscode.workspace.workspaceFolders[0].uri.fsPath;
  const listed = async () => {
    const nodes = (await api.providers.handoffs.getChildren()) || [];
    await api.whenIdle();
    return nodes.filter(n => n.kind === 'handoff').length;
  };
  await listed();
  const engine = api.folders.get(root);
  const counted = { refreshes: 0, verifications: 0 };
  const verify = engine.verify.bind(engine);
  engine.verify = (...args) => (counted.verifications++, verify(...args));

  const changes = [
    ['another process appends a status entry', () => cli('post', root, { entry_type: 'status', summary: 'Bench status', agent_id: 'elsewhere' })],
    ['another process appends a warning', () => cli('post', root, { entry_type: 'warning', summary: 'Bench warning', agent_id: 'elsewhere' })],
    ['Post Finding (this extension)', () => vscode.commands.executeCommand('twining.postFinding', { summary: 'Bench finding' })],
    ['Create Handoff (this extension)', () => vscode.commands.executeCommand('twining.createHandoff', { summary: 'Bench handoff', results: [], scope: null })],
  ];
  const rows = [];
  for (const [name, write] of changes) {
    const reloads = { agents: 0, delegations: 0, handoffs: 0 };
    const subs = VIEWS.map(view => api.providers[view].onDidChangeTreeData(e => (!e || e.kind === 'folder' ? reloads[view]++ : undefined)));
    counted.verifications = 0;
    const reads = engine.work.refreshes;
    const t0 = Date.now();
    await write();
    const written = Date.now();
    while (api.model.lastEventAt() < t0) await new Promise(resolve => setTimeout(resolve, 5));
    await api.whenIdle();
    const handoffs = await listed(); // as VS Code asks a visible view for its items
    const ms = Date.now() - written;
    subs.forEach(s => s.dispose());
    rows.push({ name, handoffs, refreshes: engine.work.refreshes - reads, verifications: counted.verifications, reloads, ms });
  }
  return { work: rows };
}

module.exports = { run: require('./activation-runner').runnerOf(measure) };
