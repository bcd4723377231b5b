// Mentions in prompt documents: highlighted, and a hover with what readerd says of the file (size,
// lines, modified time) or the folder (its files).

import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { Mention, parseMentions } from './mentions';
import { ReadResult, XmlReadParams } from '../protocol';
import { formatBytes } from '../results/results';
import { WorkspaceRoots } from '../roots';

export interface MentionDocsDeps {
  selector(): vscode.DocumentSelector;
  roots(): WorkspaceRoots;
  read(params: XmlReadParams, token: vscode.CancellationToken): Promise<ReadResult>;
  /** The files a mentioned folder gives (as paths to read). */
  folderFiles(rel: string): Promise<string[]>;
}

/** The mentions of a document that count: explicit ones, and bare ones whose path exists. */
export function documentMentions(text: string, roots: WorkspaceRoots): Mention[] {
  if (roots.folders.length === 0) {
    return [];
  }
  return parseMentions(text).filter((m) => !m.bare || fs.existsSync(roots.locate(m.path).absolute));
}

const WRITTEN_SCHEMES = new Set(['file', 'untitled', 'vscode-remote', 'vscode-userdata']);

export class MentionDecorations implements vscode.HoverProvider, vscode.Disposable {
  private readonly type = vscode.window.createTextEditorDecorationType({
    color: new vscode.ThemeColor('textLink.foreground'),
    backgroundColor: new vscode.ThemeColor('editor.wordHighlightBackground'),
    borderRadius: '3px',
  });
  private readonly subscriptions: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: MentionDocsDeps) {
    this.subscriptions.push(
      this.type,
      vscode.window.onDidChangeVisibleTextEditors(() => this.schedule()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (vscode.window.visibleTextEditors.some((ed) => ed.document === e.document)) {
          this.schedule();
        }
      }),
    );
    this.schedule();
  }

  /** Redraws the highlights soon (once per burst of typing). */
  schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.update(), 150);
  }

  /** The ranges highlighted in an editor now (also used by the tests). */
  update(): Map<vscode.TextEditor, vscode.Range[]> {
    const drawn = new Map<vscode.TextEditor, vscode.Range[]>();
    const selector = this.deps.selector();
    for (const editor of vscode.window.visibleTextEditors) {
      const doc = editor.document;
      // Documents a person writes: not output channels, results or other views.
      if (!WRITTEN_SCHEMES.has(doc.uri.scheme) || vscode.languages.match(selector, doc) === 0) {
        continue;
      }
      const ranges = documentMentions(doc.getText(), this.deps.roots()).map(
        (m) => new vscode.Range(doc.positionAt(m.start), doc.positionAt(m.end)),
      );
      editor.setDecorations(this.type, ranges);
      drawn.set(editor, ranges);
    }
    return drawn;
  }

  async provideHover(doc: vscode.TextDocument, position: vscode.Position, token: vscode.CancellationToken): Promise<vscode.Hover | undefined> {
    const offset = doc.offsetAt(position);
    const mention = documentMentions(doc.getText(), this.deps.roots()).find((m) => offset >= m.start && offset < m.end);
    if (!mention) {
      return undefined;
    }
    const range = new vscode.Range(doc.positionAt(mention.start), doc.positionAt(mention.end));
    const located = this.deps.roots().locate(mention.path);
    const isDir = fs.statSync(located.absolute, { throwIfNoEntry: false })?.isDirectory() ?? false;
    const md = new vscode.MarkdownString();
    if (mention.folder || isDir || mention.path === '.') {
      const files = await this.deps.folderFiles(mention.path);
      md.appendMarkdown(`**${escape(mention.path === '.' ? '/' : `${mention.path}/`)}**: folder, ${files.length} file${files.length === 1 ? '' : 's'} read by this mention (one level)`);
      return new vscode.Hover(md, range);
    }
    const result = await this.deps.read({ paths: [mention.path], limit: 1, lineNumbers: false, images: { maxTotalBytes: 0 } }, token);
    const file = result.files[0];
    if (!file) {
      return undefined;
    }
    if (file.code) {
      md.appendMarkdown(`**${escape(mention.path)}**: ${escape(file.code)}: ${escape(file.error ?? '')}`);
    } else {
      const facts = [
        file.type,
        formatBytes(file.bytes),
        file.lines !== undefined ? `${file.lines} line${file.lines === 1 ? '' : 's'}` : undefined,
        file.pages !== undefined ? `${file.pages} page${file.pages === 1 ? '' : 's'}` : undefined,
        file.width !== undefined && file.height !== undefined ? `${file.originalWidth ?? file.width} × ${file.originalHeight ?? file.height} px` : undefined,
        file.modified !== undefined ? `modified ${new Date(file.modified).toLocaleString()}` : undefined,
      ].filter((f) => f !== undefined);
      md.appendMarkdown(`**${escape(mention.path)}**: ${escape(facts.join(', '))}`);
    }
    return new vscode.Hover(md, range);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.subscriptions.forEach((s) => s.dispose());
  }
}

function escape(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
