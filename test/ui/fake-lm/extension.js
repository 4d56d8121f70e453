// A scripted language model for the UI tests of the chat view (test/ui/chat.test.ts), installed
// beside the extension under test; it never ships in the .vsix (.vscodeignore lists what does).
// It registers one model with the language model chat provider API (newer than the @types/vscode
// this project builds against, hence plain JavaScript) and answers by rules, not by learning:
//   - "post a finding: <summary>" -> calls the twining_post tool with that summary;
//   - a tool result in the last message -> "Tool result: <the JSON's id>";
//   - a request for capabilities (the participant's /delegate) -> ["testing"];
//   - anything else -> "Test model heard: <the last user text>".
'use strict';

const vscode = require('vscode');

const VENDOR = 'twining-test';
const MODEL = {
  id: 'twining-test-model',
  name: 'Twining Test Model',
  family: 'twining-test',
  version: '1',
  maxInputTokens: 100000,
  maxOutputTokens: 4000,
  tooltip: 'A scripted model for Twining UI tests',
  capabilities: { toolCalling: true },
};

/** The text parts of a message, joined. */
function textOf(message) {
  return (message.content || []).map(part => (typeof part.value === 'string' ? part.value : '')).join('');
}

/** The tool result part of a message, when it has one. */
function toolResultOf(message) {
  return (message.content || []).find(
    part => part instanceof vscode.LanguageModelToolResultPart || (part && typeof part.callId === 'string' && Array.isArray(part.content)),
  );
}

let calls = 0;

function answer(messages, progress) {
  const last = messages[messages.length - 1];
  const result = last && toolResultOf(last);
  if (result) {
    const text = result.content.map(p => (typeof p.value === 'string' ? p.value : '')).join('');
    let id = '';
    try {
      id = JSON.parse(text).id || '';
    } catch {
      id = '';
    }
    progress.report(new vscode.LanguageModelTextPart(`Tool result: ${id || text.slice(0, 200)}`));
    return;
  }
  const said = last ? textOf(last) : '';
  const post = /post a finding:?\s*(.+)$/i.exec(said.trim());
  if (post) {
    calls += 1;
    progress.report(
      new vscode.LanguageModelToolCallPart(`call-${calls}`, 'twining_post', { entry_type: 'finding', summary: post[1].trim(), agent_id: 'test-model' }),
    );
    return;
  }
  if (/JSON array of one to five short lowercase tags/.test(said)) {
    progress.report(new vscode.LanguageModelTextPart('["testing"]'));
    return;
  }
  progress.report(new vscode.LanguageModelTextPart(`Test model heard: ${said.slice(0, 200)}`));
}

function activate(context) {
  const changed = new vscode.EventEmitter();
  const provider = {
    onDidChangeLanguageModelChatInformation: changed.event,
    provideLanguageModelChatInformation: async () => [MODEL],
    provideLanguageModelChatResponse: async (_model, messages, _options, progress) => answer(messages, progress),
    provideTokenCount: async (_model, text) => Math.ceil((typeof text === 'string' ? text : textOf(text)).length / 4),
  };
  context.subscriptions.push(changed, vscode.lm.registerLanguageModelChatProvider(VENDOR, provider));
  // The workbench asks a vendor for its models only when something requests them.
  changed.fire();
  void vscode.lm.selectChatModels({ vendor: VENDOR });
}

function deactivate() {}

module.exports = { activate, deactivate };
