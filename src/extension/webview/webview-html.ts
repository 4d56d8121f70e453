/**
 * The HTML page of a Twining webview, as VS Code's webview guidelines ask: a strict content
 * security policy (nothing but this extension's bundled script, under a fresh nonce, and its
 * bundled style sheet; no remote content, no inline handlers, no eval), the script loaded from
 * dist/webview/ through `asWebviewUri`, and the theme's colours from the `--vscode-*` variables.
 */
import { randomBytes } from 'crypto';
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
  const src = webview.asWebviewUri(vscode.Uri.joinPath(webviewRoot(extensionUri), `${script}.js`));
  const css = webview.asWebviewUri(vscode.Uri.joinPath(webviewRoot(extensionUri), `${script}.css`));
  const csp = [
    `default-src 'none'`,
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource}`,
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
<link rel="stylesheet" href="${css.toString()}">
</head>
<body>
${body}
<script nonce="${nonce}" src="${src.toString()}"></script>
</body>
</html>`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
