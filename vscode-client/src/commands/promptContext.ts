// The prompt context: a list of files a person builds up with "readerd: Add to Prompt Context",
// seen and edited in the Explorer's "readerd: Prompt Context" view (remove one, clear all), and
// copied in one read with "readerd: Copy Prompt Context". Adding never touches the clipboard;
// a file readerd refused is named and not added. The list is kept in the workspace's state.

import * as vscode from 'vscode';
import { FileInfo, PathSpec, ReadResult } from '../protocol';
import { failureVerb, plural, reasonInWords } from '../summary';

export const PROMPT_CONTEXT_VIEW = 'readerd.promptContext';
const STATE_KEY = 'readerd.promptContext';

/** One file of the list: its path as the request writes it, the lines or pages read, its tokens. */
export interface ContextEntry {
  path: string;
  item: PathSpec;
  tokens: number;
}

/** What adding a read to the list did. */
export interface ContextAdded {
  added: string[];
  /** Files not added, with why: "…env refused: excluded by readerd.exclude". */
  refused: string[];
  entries: ContextEntry[];
  message: string;
}

/** The entry a file of a read gives: a cut text file keeps the lines read. */
function entryOf(file: FileInfo): ContextEntry {
  const item: PathSpec = file.type === 'text' && file.truncated && file.shown
    ? { path: file.path, offset: file.shown[0], limit: file.shown[1] - file.shown[0] + 1 }
    : file.path;
  return { path: file.path, item, tokens: file.tokens ?? 0 };
}

export class PromptContext implements vscode.TreeDataProvider<ContextEntry>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private entries: ContextEntry[];

  constructor(private readonly state: vscode.Memento) {
    this.entries = state.get<ContextEntry[]>(STATE_KEY) ?? [];
    void vscode.commands.executeCommand('setContext', 'readerd.promptContextEmpty', this.entries.length === 0);
  }

  list(): readonly ContextEntry[] {
    return this.entries;
  }

  tokens(): number {
    return this.entries.reduce((n, e) => n + e.tokens, 0);
  }

  /** Adds the files `result` read (a file already listed is replaced); names those it refused. */
  async add(result: ReadResult): Promise<ContextAdded> {
    const added: string[] = [];
    const refused: string[] = [];
    for (const file of result.files) {
      const why = reasonInWords(file);
      if (why || file.omitted || file.unchanged) {
        refused.push(`${file.path} ${why ? `${failureVerb(file)}: ${why}` : 'not read'}`);
        continue;
      }
      const entry = entryOf(file);
      this.entries = this.entries.filter((e) => e.path !== entry.path);
      this.entries.push(entry);
      added.push(file.path);
    }
    await this.save();
    const all = `${plural(this.entries.length, 'file')}, about ${plural(this.tokens(), 'token')} in all`;
    const message = `readerd: added ${plural(added.length, 'file')} to the prompt context (${all})` +
      (refused.length ? `; not added: ${refused.join('; ')}` : '') + '.';
    return { added, refused, entries: [...this.entries], message };
  }

  async remove(entry: ContextEntry | undefined): Promise<void> {
    if (!entry) {
      return;
    }
    this.entries = this.entries.filter((e) => e.path !== entry.path);
    await this.save();
  }

  async clear(): Promise<void> {
    this.entries = [];
    await this.save();
  }

  private async save(): Promise<void> {
    await this.state.update(STATE_KEY, this.entries);
    void vscode.commands.executeCommand('setContext', 'readerd.promptContextEmpty', this.entries.length === 0);
    this.changed.fire();
  }

  getTreeItem(entry: ContextEntry): vscode.TreeItem {
    const item = new vscode.TreeItem(entry.path, vscode.TreeItemCollapsibleState.None);
    const lines = typeof entry.item === 'string' ? '' : `lines ${entry.item.offset}–${(entry.item.offset ?? 1) + (entry.item.limit ?? 1) - 1}, `;
    item.description = `${lines}about ${plural(entry.tokens, 'token')}`;
    item.contextValue = 'readerd.contextEntry';
    item.iconPath = vscode.ThemeIcon.File;
    item.tooltip = `${entry.path}: ${item.description}`;
    return item;
  }

  getChildren(entry?: ContextEntry): ContextEntry[] {
    return entry ? [] : [...this.entries];
  }

  dispose(): void {
    this.changed.dispose();
  }
}
