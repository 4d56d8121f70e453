/**
 * The HTML page of a Twining webview, as VS Code's webview guidelines ask: a strict content
 * security policy (nothing but this extension's bundled script and style sheet, under a fresh
 * nonce; no remote content, no inline handlers, no eval) and the theme's colours from the
 * `--vscode-*` variables. The bundled script and style sheet (dist/webview/, written by esbuild.js)
 * are put in the page itself, read once per session: loading them through `asWebviewUri` is one
 * more request through the webview's service worker and the workbench to the extension host's
 * files, which the timeline's first frame waited for (a quarter of a second on the loaded
 * benchmark machine). Where the files cannot be read as local files they are loaded by URI.
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as vscode from 'vscode';

/** The folder of the bundled webview scripts (esbuild.js writes them). */
export function webviewRoot(extensionUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
}

/** The options every Twining webview runs with: scripts on, and files only from dist/webview/. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return { enableScripts: true, localResourceRoots: [webviewRoot(extensionUri)] };
}

/** The page: `script` names the bundle in dist/webview/ (its `.js` and the `.css` esbuild writes beside it), `body` its static markup. */
export function webviewHtml(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  { title, script, body }: { title: string; script: string; body: string },
): string {
  const nonce = randomBytes(16).toString('base64');
  const file = (ext: string) => vscode.Uri.joinPath(webviewRoot(extensionUri), `${script}.${ext}`);
  const js = bundled(file('js'));
  const style = bundled(file('css'));
  // "</script" inside the script (only in a string or a regular expression) written "<\/script": the same text.
  const scriptTag =
    js !== undefined
      ? `<script nonce="${nonce}">${js.replace(/<\/(script)/gi, '<\\/$1')}</script>`
      : `<script nonce="${nonce}" src="${webview.asWebviewUri(file('js')).toString()}"></script>`;
  const styleTag =
    style !== undefined && !/<\/style/i.test(style)
      ? `<style nonce="${nonce}">${style}</style>`
      : `<link rel="stylesheet" href="${webview.asWebviewUri(file('css')).toString()}">`;
  const csp = [
    `default-src 'none'`,
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource} 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    `font-src ${webview.cspSource}`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(title)}</title>
${styleTag}
</head>
<body>
${body}
${scriptTag}
</body>
</html>`;
}

/** The bundled files read so far (they do not change while the extension runs). */
const bundles = new Map<string, string | undefined>();

/** A bundled file's text without its source map comment, or undefined where it is not a readable local file. */
function bundled(uri: vscode.Uri): string | undefined {
  if (uri.scheme !== 'file') return undefined;
  if (!bundles.has(uri.fsPath)) {
    let text: string | undefined;
    try {
      text = fs.readFileSync(uri.fsPath, 'utf8').replace(/\n\/[/*]# sourceMappingURL=\S+(?: \*\/)?\s*$/, '\n');
    } catch {
      text = undefined;
    }
    bundles.set(uri.fsPath, text);
  }
  return bundles.get(uri.fsPath);
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
