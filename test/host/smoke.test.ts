// The smoke check of every host run: the workspace the launcher prepared is open with the trust it
// asked for, and the extension is loaded (or not) as package.json says; when loaded, it activates
// and registers every command package.json contributes. Runs inside a real VS Code extension host:
// see test/host/index.ts and scripts/run-host-tests.js.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { EXTENSION_ID, activateExtension, expectUntrusted, extensionExpectedLoaded, manifest, runName } from './helpers';

describe(`smoke (${runName()})`, () => {
  it('has a workspace folder open', () => {
    assert.ok(vscode.workspace.workspaceFolders, 'workspace.workspaceFolders is undefined');
    assert.ok(vscode.workspace.workspaceFolders.length >= 1);
  });

  it(`workspace trust is ${expectUntrusted() ? 'off (restricted mode)' : 'granted'}`, () => {
    assert.strictEqual(vscode.workspace.isTrusted, !expectUntrusted());
  });

  if (extensionExpectedLoaded()) {
    it(`finds the extension ${EXTENSION_ID}`, () => {
      assert.ok(vscode.extensions.getExtension(EXTENSION_ID), `extension ${EXTENSION_ID} is not loaded`);
    });

    it('activates and registers every command package.json contributes', async () => {
      await activateExtension();
      const registered = new Set(await vscode.commands.getCommands(true));
      const contributed = (manifest().contributes.commands as { command: string }[]).map(c => c.command);
      assert.ok(contributed.length > 10, `package.json contributes ${contributed.length} commands`);
      assert.deepStrictEqual(
        contributed.filter(c => !registered.has(c)),
        [],
        'contributed commands without a handler',
      );
    });
  } else {
    it(`does not load ${EXTENSION_ID} (package.json declares no untrusted-workspace support)`, () => {
      assert.strictEqual(vscode.extensions.getExtension(EXTENSION_ID), undefined);
    });
  }
});
