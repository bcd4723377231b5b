// The results view: one webview panel, reused by every read, restored after a window reload (its
// result kept in the workspace's state). The page comes from resultsHtml; this file answers its
// buttons: open a file at its first line shown, read more where a cut file goes on, the raw XML,
// copy, add to chat, open a setting.

import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { PathItem, ReadResult } from './protocol';
import { continuationItem, fileViews } from './resultModel';
import { resultsHtml } from './resultsHtml';

export const RESULTS_VIEW_TYPE = 'readerd.results';
const STATE_KEY = 'readerd.results.last';
/** Bytes of a result kept for a reload at most; a bigger one is kept without its images. */
const KEPT_FOR_RELOAD = 16 * 1024 * 1024;

/** What the view shows. */
export interface ViewedResult {
  result: ReadResult;
  title: string;
}

export interface ResultsPanelDeps {
  state: vscode.Memento;
  /** Reads one file on from where it was cut. */
  readMore(item: PathItem): Promise<ReadResult>;
  /** The file a path of the result names. */
  locate(path: string): vscode.Uri;
  /** Shows a result read by "Read more" (stores it and shows it here). */
  showResult(result: ReadResult, title: string): Promise<void>;
  /** Opens the raw XML of what the view shows. */
  openRaw(): Promise<void>;
  /** Called with a result restored after a reload, before it is shown. */
  restored(viewed: ViewedResult): void;
  log(line: string): void;
}

interface Message {
  action?: string;
  file?: number;
  offset?: number;
  column?: number;
  limit?: number;
  pages?: string;
  setting?: string;
}

export class ResultsPanel implements vscode.WebviewPanelSerializer, vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private viewed: ViewedResult | undefined;
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly deps: ResultsPanelDeps) {
    this.subs.push(vscode.window.registerWebviewPanelSerializer(RESULTS_VIEW_TYPE, this));
  }

  /** The panel, when it is open (for tests and the commands). */
  get current(): { panel: vscode.WebviewPanel; viewed: ViewedResult } | undefined {
    return this.panel && this.viewed ? { panel: this.panel, viewed: this.viewed } : undefined;
  }

  /** Shows `viewed` in the panel, opening it beside the active editor when it is not open. */
  show(viewed: ViewedResult): void {
    if (!this.panel) {
      const panel = vscode.window.createWebviewPanel(
        RESULTS_VIEW_TYPE,
        'readerd: Results',
        { viewColumn: vscode.window.activeTextEditor ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active, preserveFocus: false },
        { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [] },
      );
      this.adopt(panel);
    } else {
      this.panel.reveal(undefined, false);
    }
    this.render(viewed);
    void this.persist(viewed);
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel): Promise<void> {
    const viewed = this.deps.state.get<ViewedResult>(STATE_KEY);
    panel.webview.options = { enableScripts: true, localResourceRoots: [] };
    if (this.panel && this.panel !== panel) {
      // One results view: a second restored panel is not kept.
      panel.dispose();
      return;
    }
    this.adopt(panel);
    if (!viewed?.result?.xml) {
      panel.webview.html = '<!DOCTYPE html><html><body><p>Nothing to show: run "readerd: Read Files..." again.</p></body></html>';
      return;
    }
    this.deps.restored(viewed);
    this.render(viewed);
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    panel.onDidDispose(() => {
      if (this.panel === panel) {
        this.panel = undefined;
      }
    });
    panel.webview.onDidReceiveMessage((msg: Message) => void this.handle(msg).catch((error) => {
      const message = error instanceof Error ? error.message : String(error);
      this.deps.log(`results view: ${message}`);
      void vscode.window.showErrorMessage(`readerd: ${message}`);
    }));
  }

  private render(viewed: ViewedResult): void {
    this.viewed = viewed;
    const nonce = randomBytes(16).toString('base64');
    this.panel!.title = `readerd: ${viewed.title}`;
    this.panel!.webview.html = resultsHtml(viewed.result, viewed.title, nonce);
  }

  private async persist(viewed: ViewedResult): Promise<void> {
    const size = Buffer.byteLength(viewed.result.xml) + viewed.result.images.reduce((n, i) => n + i.data.length, 0);
    const kept = size <= KEPT_FOR_RELOAD ? viewed : { ...viewed, result: { ...viewed.result, images: [] } };
    await this.deps.state.update(STATE_KEY, kept);
  }

  private async handle(msg: Message): Promise<void> {
    const viewed = this.viewed;
    const file = viewed && msg.file !== undefined ? viewed.result.files[msg.file] : undefined;
    switch (msg.action) {
      case 'open': {
        if (!file) {
          return;
        }
        const line = Math.max((file.shown?.[0] ?? 1) - 1, 0);
        const uri = this.deps.locate(file.path);
        if (file.type === 'text' || file.type === undefined) {
          const selection = new vscode.Range(line, 0, line, 0);
          await vscode.window.showTextDocument(uri, { selection, viewColumn: vscode.ViewColumn.One });
        } else {
          await vscode.commands.executeCommand('vscode.open', uri, vscode.ViewColumn.One);
        }
        return;
      }
      case 'more': {
        if (!file || !viewed) {
          return;
        }
        const view = fileViews(viewed.result)[msg.file!];
        const named = [view?.more, ...(view?.restOfLines ?? [])].find((c) =>
          c && c.offset === msg.offset && c.column === msg.column && c.pages === msg.pages && c.limit === msg.limit);
        if (!named) {
          // Only what the daemon's notice named is read.
          return;
        }
        const item = continuationItem(file.path, named);
        this.deps.log(`read more: ${JSON.stringify(item)}`);
        const next = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: `readerd: reading more of ${file.path}` },
          () => this.deps.readMore(item),
        );
        const where = item.pages !== undefined ? `pages ${item.pages}` : item.column !== undefined ? `line ${item.offset} from character ${item.column}` : `from line ${item.offset}`;
        await this.deps.showResult(next, `${file.path}, ${where}`);
        return;
      }
      case 'raw':
        await this.deps.openRaw();
        return;
      case 'copy':
        await vscode.commands.executeCommand('readerd.copyAsPromptContext');
        return;
      case 'chat':
        await vscode.commands.executeCommand('readerd.addToChat');
        return;
      case 'setting':
        if (msg.setting === 'readerd.exclude' || msg.setting === 'readerd.confineToWorkspace') {
          await vscode.commands.executeCommand('workbench.action.openSettings', msg.setting);
        }
        return;
      default:
        return;
    }
  }

  dispose(): void {
    this.panel?.dispose();
    for (const s of this.subs) {
      s.dispose();
    }
  }
}
