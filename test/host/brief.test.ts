// @twining /brief in the real host: the briefing for the active file's scope (or the scope the
// prompt names) as Markdown, each item with why it is there and a link that opens its record.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { describeIn, openFile } from './helpers';
import { TwiningApi, twining } from './twining';

const JWT_HANDOFF = '01M80HHKAVJT8FG2B08Q4NGZ4W';
const EXP_WARNING = '01M80HHK5EACAY1D2CS04B635E';

/** Runs `/brief <prompt>` through the participant's handler with a stream that keeps what it gets. */
async function brief(api: TwiningApi, prompt: string) {
  const out = { markdown: [] as vscode.MarkdownString[], references: [] as string[] };
  const stream = {
    markdown: (value: string | vscode.MarkdownString) => void out.markdown.push(typeof value === 'string' ? new vscode.MarkdownString(value) : value),
    progress: () => undefined,
    button: () => undefined,
    reference: (value: vscode.Uri | vscode.Location) => void out.references.push((value instanceof vscode.Uri ? value : value.uri).fsPath),
    anchor: () => undefined,
    push: () => undefined,
  } as unknown as vscode.ChatResponseStream;
  const request = { prompt, command: 'brief', references: [], toolReferences: [], toolInvocationToken: undefined } as unknown as vscode.ChatRequest;
  const result = (await api.chatHandler(request, { history: [] }, stream, new vscode.CancellationTokenSource().token)) as vscode.ChatResult;
  return { out, text: out.markdown.map(m => m.value).join(''), metadata: (result?.metadata ?? {}) as Record<string, unknown> };
}

/** The arguments of the command links in Markdown, by command. */
function links(text: string, command: string): Record<string, unknown>[] {
  return [...text.matchAll(new RegExp(`\\(command:${command.replace(/\./g, '\\.')}\\?([^)]+)\\)`, 'g'))].map(
    m => (JSON.parse(decodeURIComponent(m[1])) as Record<string, unknown>[])[0],
  );
}

describeIn(['single'], '@twining /brief', () => {
  let api: TwiningApi;
  before(async () => {
    api = await twining();
  });
  after(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it("briefs on the active file: the waiting handoff and the scope's warning, each with its reason and a link that opens it", async () => {
    await openFile('src/auth/jwt.ts');
    const { out, text, metadata } = await brief(api, '');
    assert.strictEqual(metadata.scope, 'src/auth/jwt.ts');
    assert.match(text, new RegExp(`\\*\\*Briefing for \`${api.agentId()}\`\\*\\* on \`src/auth/jwt\\.ts\``));
    assert.match(
      text,
      /#### Handoffs waiting for you\n- \*\*backend-dev → any agent\*\*: JWT auth middleware implemented; needs tests and a security review — _[^_]+_/,
    );
    assert.deepStrictEqual(
      links(text, 'twining.openHandoff').map(a => a.handoff_id),
      [JWT_HANDOFF],
    );
    assert.match(text, /#### Warnings\n- ⚠️ \*\*verifyToken does not check the exp claim\*\* — _active warning in src\/auth\/jwt\.ts_/);
    assert.ok(
      links(text, 'twining.openRecord').some(a => a.type === 'entry' && a.id === EXP_WARNING),
      'the warning links to its record',
    );
    const trusted = out.markdown[0].isTrusted as { enabledCommands: string[] };
    assert.deepStrictEqual(trusted.enabledCommands, ['twining.openRecord', 'twining.openHandoff'], 'only the two open commands run from the links');
    assert.ok(out.references.some(r => r.endsWith('jwt.ts')));

    // A link does what it says: it opens the warning's record.
    const args = links(text, 'twining.openRecord').find(a => a.id === EXP_WARNING)!;
    await vscode.commands.executeCommand('twining.openRecord', args);
    const doc = vscode.window.activeTextEditor?.document;
    assert.match(doc?.getText() ?? '', /verifyToken does not check the exp claim/);
  });

  it('takes the scope and the task from the prompt', async () => {
    const { text, metadata } = await brief(api, 'scope: src/auth/ add key rotation');
    assert.strictEqual(metadata.scope, 'src/auth/');
    assert.match(text, /on `src\/auth\/` — add key rotation/);
    const nothing = await brief(api, 'docs/nowhere/ read the docs');
    assert.strictEqual(nothing.metadata.scope, 'docs/nowhere/');
    assert.match(nothing.text, /Nothing recorded bears on `docs\/nowhere\/` yet\.|#### /);
  });
});
