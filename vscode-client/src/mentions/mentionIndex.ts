// The workspace's files and folders that `@` completion offers: found with VS Code's file search
// (`files.exclude` applies), less what each folder's `.gitignore` and `readerd.exclude` leave out
// (exclusion.ts), with the files opened most recently first.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXCLUSION_SETTINGS, Exclusion, IGNORE_FILE } from '../exclusion';
import { WorkspaceRoots } from '../roots';

/** Most files listed; a bigger workspace is cut (the most recently opened are kept first). */
export const MAX_INDEXED_FILES = 20_000;
const MAX_RECENT = 50;

export interface IndexedEntry {
  /** As a mention writes it, without `@/`: relative to the folder, the folder's name first in a multi-root workspace. */
  rel: string;
  uri: vscode.Uri;
  folder: boolean;
}

export class MentionIndex implements vscode.Disposable {
  private entries: Promise<IndexedEntry[]> | undefined;
  private readonly recent: string[] = [];
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly roots: () => WorkspaceRoots,
    private readonly exclusion: Pick<Exclusion, 'leftOutBy'>,
  ) {
    const watcher = vscode.workspace.createFileSystemWatcher('**/*', false, true, false);
    const stale = (): void => {
      this.entries = undefined;
    };
    this.subscriptions.push(
      watcher,
      watcher.onDidCreate(stale),
      watcher.onDidDelete(stale),
      vscode.workspace.onDidChangeWorkspaceFolders(stale),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (EXCLUSION_SETTINGS.some((setting) => e.affectsConfiguration(setting))) {
          stale();
        }
      }),
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (path.basename(doc.uri.fsPath) === IGNORE_FILE) {
          stale();
        }
      }),
      vscode.window.onDidChangeActiveTextEditor((editor) => editor && this.opened(editor.document.uri)),
    );
    // What is open now counts as recent, the active editor most.
    for (const tab of vscode.window.tabGroups.all.flatMap((g) => g.tabs)) {
      if (tab.input instanceof vscode.TabInputText) {
        this.opened(tab.input.uri);
      }
    }
    const active = vscode.window.activeTextEditor?.document.uri;
    if (active) {
      this.opened(active);
    }
  }

  private opened(uri: vscode.Uri): void {
    if (uri.scheme !== 'file') {
      return;
    }
    const at = this.recent.indexOf(uri.fsPath);
    if (at >= 0) {
      this.recent.splice(at, 1);
    }
    this.recent.unshift(uri.fsPath);
    this.recent.length = Math.min(this.recent.length, MAX_RECENT);
  }

  /**
   * Rank of a file among the recently opened ones (0: the last), undefined when not recent.
   * `except` (the document being written) does not count.
   */
  recentRank(uri: vscode.Uri, except?: vscode.Uri): number | undefined {
    const recent = except ? this.recent.filter((p) => p !== except.fsPath) : this.recent;
    const at = recent.indexOf(uri.fsPath);
    return at < 0 || uri.fsPath === except?.fsPath ? undefined : at;
  }

  /** The files and folders, files first in order of the search, each folder once. */
  list(): Promise<IndexedEntry[]> {
    this.entries ??= this.build().catch((error: unknown) => {
      this.entries = undefined;
      throw error;
    });
    return this.entries;
  }

  private async build(): Promise<IndexedEntry[]> {
    const roots = this.roots();
    const found = await vscode.workspace.findFiles('**/*', undefined, MAX_INDEXED_FILES);
    const leftOut = await this.exclusion.leftOutBy({ patterns: true });
    const entries: IndexedEntry[] = [];
    const folders = new Map<string, IndexedEntry>();
    for (const uri of found) {
      const folder = roots.folderOf(uri.fsPath);
      if (!folder || leftOut(uri.fsPath)) {
        continue;
      }
      const rel = roots.display(uri.fsPath);
      entries.push({ rel, uri, folder: false });
      // Every folder above the file, up to its workspace folder.
      let dir = path.dirname(uri.fsPath);
      while (dir !== folder.path && dir.startsWith(folder.path) && !folders.has(dir)) {
        folders.set(dir, { rel: roots.display(dir), uri: vscode.Uri.file(dir), folder: true });
        dir = path.dirname(dir);
      }
    }
    entries.sort((a, b) => a.rel.localeCompare(b.rel));
    return [...entries, ...[...folders.values()].sort((a, b) => a.rel.localeCompare(b.rel))];
  }

  dispose(): void {
    this.subscriptions.forEach((s) => s.dispose());
  }
}
