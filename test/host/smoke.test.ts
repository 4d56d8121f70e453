// Placeholder smoke test for the extension host suite (the extension's own tests replace or extend
// it). Runs inside a real VS Code extension host: see test/host/index.ts and scripts/run-host-tests.js.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { EXTENSION_ID, expectUntrusted, extensionExpectedLoaded, runName } from './helpers';

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
  } else {
    it(`does not load ${EXTENSION_ID} (package.json declares no untrusted-workspace support)`, () => {
      assert.strictEqual(vscode.extensions.getExtension(EXTENSION_ID), undefined);
    });
  }
});
