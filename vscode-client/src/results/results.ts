// Keeps read results: a read is shown in the results view (resultsPanel.ts), its XML served as a
// read-only document (`readerd:` scheme) a click away; an expanded prompt opens as a document,
// the read behind it (its pictures too) in the same results view.

import * as vscode from 'vscode';
import { ReadResult } from '../protocol';
import { formatBytes } from '../format';
import { RecentMap } from './recent';
import type { ResultsPanel, ViewedResult } from './resultsPanel';

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
    void vscode.commands.executeCommand('setContext', 'readerd.hasResult', true);
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
   * Stores a result and shows it in the results view (`view` says what else the view shows of
   * it: the folders capped, the plan's notices). With `as`, the result's `xml` is a document of
   * its own (an expanded prompt), opened as `NAME-N.EXT` in that language, and `view.read` is the
   * read shown in the results view when it has pictures.
   */
  async show(result: ReadResult, title: string, as?: { name: string; ext: string; language: string }, view: Omit<ViewedResult, 'result' | 'title'> & { read?: ReadResult } = {}): Promise<ShownResult> {
    if (!as && this.view) {
      const shown = this.keep(result, title);
      this.view.show({ result, title, caps: view.caps, notices: view.notices, cap: view.cap, answeredAt: view.answeredAt });
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
    if (view.read && view.read.images.length > 0 && this.view) {
      // The pictures are in the results view, with the read they come from.
      this.keep(view.read, title);
      this.last = shown;
      this.view.show({ result: view.read, title });
      await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false });
    }
    return shown;
  }

  /** Shows the results view again (its pictures are inline). */
  showImages(): void {
    if (!this.last) {
      void vscode.window.showInformationMessage('readerd: nothing has been read yet.');
      return;
    }
    const current = this.view?.current;
    if (current) {
      current.panel.reveal(undefined, false);
    } else {
      this.view?.show({ result: this.last.result, title: this.last.title });
    }
  }

  dispose(): void {
    this.registration.dispose();
    this.changeEmitter.dispose();
  }
}

