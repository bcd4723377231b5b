// Keeps read results: a read is shown in the results view (resultsPanel.ts), its XML served as a
// read-only document (`readerd:` scheme) a click away; an expanded prompt opens as a document
// with its images in a webview panel.

import * as vscode from 'vscode';
import { ReadResult } from './protocol';
import { formatBytes } from './format';
import { RecentMap } from './recent';
import type { ResultsPanel } from './resultsPanel';

export { formatBytes };

export const RESULT_SCHEME = 'readerd';

export interface ShownResult {
  uri: vscode.Uri;
  result: ReadResult;
  title: string;
}

/** How many results are kept for their documents and the image panel, the oldest dropped first. */
export const KEPT_RESULTS = 20;
/** Bytes of XML and image data kept at most (the last result is kept whatever its size). */
export const KEPT_RESULT_BYTES = 64 * 1024 * 1024;

/** Bytes a result holds: its XML (UTF-8) and its images' base64. */
export function resultBytes(result: ReadResult): number {
  return Buffer.byteLength(result.xml) + result.images.reduce((sum, image) => sum + image.data.length, 0);
}

/** Holds the recent results read in this window and serves their XML as documents. */
export class ResultStore implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly results = new RecentMap<string, ShownResult>(KEPT_RESULTS, KEPT_RESULT_BYTES, (s) => resultBytes(s.result));
  private counter = 0;
  private last: ShownResult | undefined;
  private panel: vscode.WebviewPanel | undefined;
  private readonly changeEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changeEmitter.event;
  private readonly registration: vscode.Disposable;
  private view: ResultsPanel | undefined;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.results.get(uri.toString())?.result.xml ?? '<!-- this readerd result is no longer available -->\n';
  }

  /** The result shown in the active editor, else the last one read. */
  current(): ShownResult | undefined {
    const active = vscode.window.activeTextEditor?.document.uri;
    if (active?.scheme === RESULT_SCHEME) {
      return this.results.get(active.toString()) ?? this.last;
    }
    return this.last;
  }

  lastResult(): ShownResult | undefined {
    return this.last;
  }

  /** Shows read results in `view` from now on instead of opening their XML. */
  useView(view: ResultsPanel): void {
    this.view = view;
  }

  /** Keeps a result without showing it (one the results view restored after a reload). */
  keep(result: ReadResult, title: string): ShownResult {
    this.counter++;
    const uri = vscode.Uri.from({ scheme: RESULT_SCHEME, path: `/ReadResults-${this.counter}.xml` });
    const shown: ShownResult = { uri, result, title };
    this.results.set(uri.toString(), shown);
    this.last = shown;
    void vscode.commands.executeCommand('setContext', 'readerd.hasImages', result.images.length > 0);
    return shown;
  }

  /** Opens the XML of a result (the last one by default) in a read-only XML editor. */
  async openRaw(shown: ShownResult | undefined = this.last): Promise<vscode.TextEditor | undefined> {
    if (!shown) {
      return undefined;
    }
    const doc = await vscode.workspace.openTextDocument(shown.uri);
    if (doc.languageId !== 'xml') {
      await vscode.languages.setTextDocumentLanguage(doc, 'xml').then(undefined, () => undefined);
    }
    return vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: false });
  }

  /**
   * Stores a result, opens its XML beside the editor and its images in the preview panel. With
   * `as`, the document is named `NAME-N.EXT` and has that language (an expanded prompt: the
   * result's `xml` is then the prompt).
   */
  async show(result: ReadResult, title: string, as?: { name: string; ext: string; language: string }): Promise<ShownResult> {
    if (!as && this.view) {
      const shown = this.keep(result, title);
      this.view.show({ result, title });
      return shown;
    }
    as ??= { name: 'ReadResults', ext: 'xml', language: 'xml' };
    this.counter++;
    const uri = vscode.Uri.from({ scheme: RESULT_SCHEME, path: `/${as.name}-${this.counter}.${as.ext}` });
    const shown: ShownResult = { uri, result, title };
    this.results.set(uri.toString(), shown);
    this.last = shown;
    await vscode.commands.executeCommand('setContext', 'readerd.hasImages', result.images.length > 0);
    const doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== as.language) {
      await vscode.languages.setTextDocumentLanguage(doc, as.language).then(undefined, () => undefined);
    }
    // Beside the editor being worked in; in the first group when no editor is open.
    const editor = await vscode.window.showTextDocument(doc, {
      viewColumn: vscode.window.activeTextEditor ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active,
      preview: false,
    });
    if (result.images.length > 0) {
      this.showImages(shown, editor.viewColumn);
    }
    return shown;
  }

  /** Opens (or refreshes) the image preview panel for a result. */
  showImages(shown: ShownResult | undefined = this.last, besideOf?: vscode.ViewColumn): void {
    if (!shown) {
      void vscode.window.showInformationMessage('readerd: nothing has been read yet.');
      return;
    }
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        'readerd.images',
        'readerd: Images',
        { viewColumn: besideOf !== undefined ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active, preserveFocus: true },
        { enableScripts: true, retainContextWhenHidden: false },
      );
      this.panel.onDidDispose(() => (this.panel = undefined));
      this.panel.webview.onDidReceiveMessage((msg: { command?: string }) => {
        if (msg?.command === 'copy') {
          void vscode.commands.executeCommand('readerd.copyAsPromptContext');
        }
      });
    } else {
      this.panel.reveal(undefined, true);
    }
    this.panel.title = `readerd: ${shown.result.images.length} image${shown.result.images.length === 1 ? '' : 's'}`;
    this.panel.webview.html = imagesHtml(shown, this.panel.webview.cspSource);
  }

  dispose(): void {
    this.panel?.dispose();
    this.registration.dispose();
    this.changeEmitter.dispose();
  }
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}


/** The image panel's page: each picture with its path (and page, or tile), sizes, and a copy button. */
export function imagesHtml(shown: ShownResult, cspSource: string): string {
  const nonce = Math.random().toString(36).slice(2) + Date.now().toString(36);
  const { result } = shown;
  const cards = result.images.map((img, k) => {
    const file = result.files.find((f) => f.image === k && f.path === img.path) ?? result.files.find((f) => f.image === k);
    const original = img.originalWidth && img.originalHeight
      ? `${img.originalWidth} × ${img.originalHeight} px (scaled down)`
      : `${img.width} × ${img.height} px`;
    const page = img.page !== undefined ? `, page ${img.page}` : '';
    const tile = img.tile && img.tileIndex !== undefined
      ? `<div class="meta">tile ${img.tileIndex} of ${img.tiles ?? '?'}: x ${img.tile.x}-${img.tile.x + img.tile.width}, y ${img.tile.y}-${img.tile.y + img.tile.height}</div>`
      : '';
    return `<figure class="card">
  <img src="data:${escapeHtml(img.mediaType)};base64,${img.data}" alt="${escapeHtml(img.path)}${page}" width="${img.width}" height="${img.height}">
  <figcaption>
    <div class="path">${escapeHtml(img.path)}${page}</div>${tile}
    <div class="meta">size: ${img.width} × ${img.height} px, ${formatBytes(file?.bytes)} on disk, ${escapeHtml(img.mediaType)}</div>
    <div class="meta">original size: ${original}</div>
  </figcaption>
</figure>`;
  });
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data: ${cspSource}; style-src 'unsafe-inline'; script-src 'nonce-${nonce}';">
<title>readerd images</title>
<style>
  body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 12px; }
  .bar { margin-bottom: 12px; display: flex; gap: 12px; align-items: center; }
  button { background: var(--vscode-button-background); color: var(--vscode-button-foreground); border: none; padding: 4px 10px; cursor: pointer; }
  .grid { display: flex; flex-wrap: wrap; gap: 16px; }
  .card { margin: 0; padding: 8px; border: 1px solid var(--vscode-panel-border, #8884); max-width: 100%; }
  .card img { max-width: 100%; height: auto; image-rendering: auto; background: repeating-conic-gradient(#8882 0% 25%, transparent 0% 50%) 50% / 16px 16px; }
  .path { font-family: var(--vscode-editor-font-family); font-weight: bold; margin-top: 6px; word-break: break-all; }
  .meta { opacity: 0.85; font-size: 0.92em; }
</style>
</head>
<body>
<div class="bar"><span>${result.images.length} image${result.images.length === 1 ? '' : 's'} of ${result.files.length} file${result.files.length === 1 ? '' : 's'} read</span><button id="copy">Copy as prompt context</button></div>
<div class="grid">
${cards.join('\n')}
</div>
<script nonce="${nonce}">
  const vscode = acquireVsCodeApi();
  document.getElementById('copy').addEventListener('click', () => vscode.postMessage({ command: 'copy' }));
</script>
</body>
</html>`;
}
