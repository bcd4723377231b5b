// The results view: one webview panel, reused by every read, restored after a window reload (its
// result kept in the workspace's state). The page (resultsHtml, resultsPage) is loaded once; each
// result goes to it as a message, and a file's content when the page opens its card. This file
// answers its buttons: open a file at its first line shown, read more where a cut file goes on
// (and back), read the rest of a capped folder, the raw XML, copy, add to chat, open a setting.
// It also keeps what the page said of its paints (time and long tasks) for the tests.

import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { PathItem, ReadNotice, ReadResult } from '../protocol';
import { continuationItem, FileView, fileViews } from './resultModel';
import { FolderCap, fileCardHtml, fileContentHtml, resultsModel, resultsShell } from './resultsHtml';
import { plural } from '../summary';

export const RESULTS_VIEW_TYPE = 'readerd.results';
const STATE_KEY = 'readerd.results.last';
/** Bytes of a result kept for a reload at most; a bigger one is kept without its images, and one
 * whose text alone passes it is not kept (the view then asks to read again). */
const KEPT_FOR_RELOAD = 16 * 1024 * 1024;
/** Results "Back" can return to. */
const HISTORY = 10;
const HISTORY_BYTES = 64 * 1024 * 1024;
/** Cards sent with a result (more than a screen holds), and in each message after it. */
const FIRST_CARDS = 100;
const CARD_CHUNK = 250;

/** What the view shows. */
export interface ViewedResult {
  result: ReadResult;
  title: string;
  /** Folders the read capped (readerd.folderMaxFiles), with what was shown of how many. */
  caps?: FolderCap[];
  /** The plan's notices (what ignore rules left out, ...). */
  notices?: ReadNotice[];
  /** The cap the read was made with. */
  cap?: number;
  /** When the daemon's answer arrived (Date.now()), for the time to the first paint. */
  answeredAt?: number;
}

/** What the page said of a paint: how long after the answer, and its long tasks. */
export interface PaintReport {
  seq: number;
  /** Milliseconds from the answer reaching the view to the page's first paint of it. */
  firstPaintMs: number;
  /** Milliseconds the page spent from receiving the result to that paint. */
  pageMs: number;
  cards: number;
  supported: boolean;
  longTasks: number[];
}

/** The page's answer to a question about its state. */
export interface PageStats {
  supported: boolean;
  longTasks: number[];
  /** When each long task began, in ms after the result reached the page. */
  longTaskStarts?: number[];
  cards: number;
  shows?: boolean;
  ms?: number;
}

export interface ResultsPanelDeps {
  state: vscode.Memento;
  /** Reads one file on from where it was cut. */
  readMore(item: PathItem): Promise<ReadResult>;
  /** The file a path of the result names. */
  locate(path: string): vscode.Uri;
  /** Shows a result read by "Read more" (stores it and shows it here). */
  showResult(result: ReadResult, title: string): Promise<void>;
  /** Reads the files of a capped folder past those shown. */
  readRest(cap: FolderCap, viewed: ViewedResult): Promise<void>;
  /** Keeps a result shown again by "Back" as the current one. */
  keep(viewed: ViewedResult): void;
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
  cap?: number;
  setting?: string;
  seq?: number;
  id?: number;
  ms?: number;
  at?: number;
  cards?: number;
  supported?: boolean;
  longTasks?: number[];
  longTaskStarts?: number[];
  shows?: boolean;
}

export class ResultsPanel implements vscode.WebviewPanelSerializer, vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private viewed: ViewedResult | undefined;
  private views: FileView[] = [];
  private readonly history: ViewedResult[] = [];
  private seq = 0;
  private ready = false;
  private shownAt = 0;
  private readonly paints = new Map<number, PaintReport>();
  private readonly waiting = new Map<number, (stats: PageStats) => void>();
  private questions = 0;
  private readonly paintEmitter = new vscode.EventEmitter<PaintReport>();
  readonly onDidPaint = this.paintEmitter.event;
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly deps: ResultsPanelDeps) {
    this.subs.push(vscode.window.registerWebviewPanelSerializer(RESULTS_VIEW_TYPE, this), this.paintEmitter);
  }

  /** The panel, when it is open (for tests and the commands). */
  get current(): { panel: vscode.WebviewPanel; viewed: ViewedResult; seq: number; paint?: PaintReport; back?: string } | undefined {
    return this.panel && this.viewed
      ? { panel: this.panel, viewed: this.viewed, seq: this.seq, paint: this.paints.get(this.seq), back: this.history[this.history.length - 1]?.title }
      : undefined;
  }

  /** What the view shows as HTML: every card, and the content of the files open from the start. */
  shownHtml(): string {
    const viewed = this.viewed;
    if (!viewed) {
      return '';
    }
    const model = resultsModel(viewed.result, viewed.title, this.views, { seq: this.seq, caps: viewed.caps, notices: viewed.notices, cap: viewed.cap });
    const open = new Set(model.open);
    return [model.headerHtml, ...this.views.map((v) => fileCardHtml(v) + (open.has(v.index) ? fileContentHtml(v, viewed.result) : ''))].join('\n');
  }

  /** Asks the page a question (its long tasks since the result was shown; scrolling to a file). */
  ask(question: { type: 'stats' } | { type: 'scrollTo'; file: number }, timeoutMs = 10_000): Promise<PageStats | undefined> {
    if (!this.panel || !this.ready) {
      return Promise.resolve(undefined);
    }
    const id = ++this.questions;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve(undefined);
      }, timeoutMs);
      this.waiting.set(id, (stats) => {
        clearTimeout(timer);
        resolve(stats);
      });
      void this.panel!.webview.postMessage({ ...question, id, seq: this.seq });
    });
  }

  /**
   * Shows `viewed` in the panel, opening it beside the active editor when it is not open. The
   * result shown before it is kept for "Back" unless `back` is false.
   */
  show(viewed: ViewedResult, options: { back?: boolean } = {}): void {
    this.shownAt = viewed.answeredAt ?? Date.now();
    if (this.viewed && options.back !== false && this.viewed !== viewed) {
      this.history.push(this.viewed);
      this.history.splice(0, Math.max(0, this.history.length - HISTORY));
      // As the results kept for their XML: the oldest go first past 64 MiB of text and pictures.
      const size = (v: ViewedResult): number => v.result.xml.length + v.result.images.reduce((n, i) => n + i.data.length, 0);
      let total = this.history.reduce((n, v) => n + size(v), 0);
      while (this.history.length > 0 && total > HISTORY_BYTES) {
        total -= size(this.history.shift()!);
      }
    }
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
    this.ready = false;
    panel.webview.html = resultsShell(randomBytes(16).toString('base64'));
    panel.onDidDispose(() => {
      if (this.panel === panel) {
        this.panel = undefined;
        this.ready = false;
      }
    });
    panel.webview.onDidReceiveMessage((msg: Message) => void this.handle(msg).catch((error) => {
      const message = error instanceof Error ? error.message : String(error);
      this.deps.log(`results view: ${message}`);
      void vscode.window.showErrorMessage(`readerd: ${message.replace(/^readerd: /, '')}`);
    }));
  }

  private render(viewed: ViewedResult): void {
    const started = Date.now();
    this.viewed = viewed;
    this.views = fileViews(viewed.result);
    this.seq++;
    this.panel!.title = `readerd: ${viewed.title}`;
    if (this.ready) {
      this.post();
    }
    this.deps.log(`results view: ${plural(this.views.length, 'file')} prepared in ${Date.now() - started} ms`);
  }

  /**
   * Sends the result to the page: the header and the cards of the first files at once, the
   * other cards after it, a chunk at a time, so that what comes before the first paint does not
   * grow with the answer.
   */
  private post(): void {
    const viewed = this.viewed;
    if (!viewed || !this.panel) {
      return;
    }
    const back = this.history[this.history.length - 1]?.title;
    const seq = this.seq;
    const views = this.views;
    const model = resultsModel(viewed.result, viewed.title, views, { seq, caps: viewed.caps, notices: viewed.notices, back, cap: viewed.cap, first: FIRST_CARDS });
    const panel = this.panel;
    void panel.webview.postMessage({ type: 'show', model });
    const next = (from: number): void => {
      if (from >= views.length || this.seq !== seq || this.panel !== panel) {
        return;
      }
      const cards = views.slice(from, from + CARD_CHUNK).map(fileCardHtml);
      void panel.webview.postMessage({ type: 'cards', seq, from, cards });
      setTimeout(() => next(from + CARD_CHUNK), 0);
    };
    setTimeout(() => next(model.cards.length), 0);
  }

  private async persist(viewed: ViewedResult): Promise<void> {
    const text = Buffer.byteLength(viewed.result.xml);
    const size = text + viewed.result.images.reduce((n, i) => n + i.data.length, 0);
    viewed = { ...viewed, answeredAt: undefined };
    const kept = size <= KEPT_FOR_RELOAD ? viewed : text <= KEPT_FOR_RELOAD ? { ...viewed, result: { ...viewed.result, images: [] } } : undefined;
    await this.deps.state.update(STATE_KEY, kept);
  }

  private async handle(msg: Message): Promise<void> {
    if (msg.action === 'ready') {
      this.ready = true;
      this.post();
      return;
    }
    if (msg.action === 'painted' || msg.action === 'stats') {
      this.report(msg);
      return;
    }
    const viewed = this.viewed;
    if (msg.seq !== undefined && msg.seq !== this.seq) {
      // A click on a result no longer shown.
      return;
    }
    const file = viewed && msg.file !== undefined ? viewed.result.files[msg.file] : undefined;
    switch (msg.action) {
      case 'content': {
        const view = msg.file !== undefined ? this.views[msg.file] : undefined;
        if (view && viewed) {
          void this.panel?.webview.postMessage({ type: 'content', seq: this.seq, file: view.index, html: fileContentHtml(view, viewed.result) });
        }
        return;
      }
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
        const view = this.views[msg.file!];
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
      case 'rest': {
        const cap = viewed && msg.cap !== undefined ? viewed.caps?.[msg.cap] : undefined;
        if (cap && viewed) {
          await this.deps.readRest(cap, viewed);
        }
        return;
      }
      case 'back': {
        const previous = this.history.pop();
        if (previous && this.panel) {
          this.deps.keep(previous);
          this.render(previous);
          void this.persist(previous);
        }
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
        if (msg.setting === 'readerd.exclude' || msg.setting === 'readerd.confineToWorkspace' || msg.setting === 'readerd.folderMaxFiles') {
          await vscode.commands.executeCommand('workbench.action.openSettings', msg.setting);
        }
        return;
      default:
        return;
    }
  }

  private report(msg: Message): void {
    const stats: PageStats = { supported: !!msg.supported, longTasks: msg.longTasks ?? [], longTaskStarts: msg.longTaskStarts, cards: msg.cards ?? 0, shows: msg.shows, ms: msg.ms };
    if (msg.action === 'stats') {
      if (msg.id !== undefined) {
        this.waiting.get(msg.id)?.(stats);
        this.waiting.delete(msg.id);
      }
      return;
    }
    if (msg.seq !== this.seq) {
      return;
    }
    // The page's clock is this machine's: its time of the paint, not of this message's arrival.
    const paint: PaintReport = { seq: msg.seq, firstPaintMs: (typeof msg.at === 'number' ? msg.at : Date.now()) - this.shownAt, pageMs: Math.round(msg.ms ?? 0), cards: stats.cards, supported: stats.supported, longTasks: stats.longTasks };
    this.paints.set(msg.seq, paint);
    this.deps.log(`results view: ${plural(this.viewed?.result.files.length ?? 0, 'file')} painted ${paint.firstPaintMs} ms after the answer (page ${paint.pageMs} ms, ${paint.cards} cards drawn, long tasks: ${paint.longTasks.join(', ') || 'none'})`);
    this.paintEmitter.fire(paint);
  }

  dispose(): void {
    this.panel?.dispose();
    for (const s of this.subs) {
      s.dispose();
    }
  }
}
