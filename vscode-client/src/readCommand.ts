// "readerd: Read Files...": from the command palette (a multi-select quick pick over the
// workspace's files) or from the Explorer's context menu on a multi-selection of files and
// folders. The daemon first plans the read (`plan: true`; a folder expanded by the daemon,
// recursively, with its ignore rules and `expand.maxFiles`); the files the Explorer hides
// (files.exclude) are taken out of the plan; a plan past `readerd.confirmAboveTokens` estimated
// tokens is shown and asked about; then the planned files are read.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { ReadParams, ReadResult } from './protocol';
import { choosePlanned, confirmationText, needsConfirmation, PlannedRead, readSummary, summaryIsWarning } from './readPlan';
import { ResultStore, ShownResult } from './results';
import { pickEntries } from './pickItems';

export interface ReadCommandDeps {
  /** How to write a file's path in the request: relative to its workspace folder (see WorkspaceRoots.display). */
  display(fsPath: string): string;
  read(params: Pick<ReadParams, 'paths' | 'expand' | 'plan'>, token: vscode.CancellationToken): Promise<ReadResult>;
  /** Whether the Explorer hides a path as `display` writes it (files.exclude). */
  hidden(displayed: string): boolean;
  /** Whether readerd.exclude refuses an absolute path (the quick pick leaves it out). */
  excluded(fsPath: string): boolean;
  /** Where a path as `display` writes it is (for a folder picked in the quick pick). */
  locate(displayed: string): vscode.Uri;
  /** `readerd.confirmAboveTokens`. */
  confirmAboveTokens(): number;
  results: ResultStore;
  log(line: string): void;
}

/** What the command showed, with its plan and summary. */
export interface ReadCommandOutcome extends ShownResult {
  planned: PlannedRead;
  summary: string;
  /** The summary was shown as a warning: something was refused, not read, cut or left out. */
  warning: boolean;
}

/** Files per selected folder at most: the daemon's default, said here as the contract of the command. */
export const FOLDER_MAX_FILES = 500;

const MAX_PICK_FILES = 20_000;

/** Files directly in a folder, as VS Code lists them (files.exclude applies), sorted. */
export async function filesInFolder(folder: vscode.Uri): Promise<vscode.Uri[]> {
  const found = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, '*'));
  return found.sort((a, b) => a.fsPath.localeCompare(b.fsPath));
}

interface Selection {
  uris: vscode.Uri[];
  /** Indices of the folders among them. */
  folders: Set<number>;
}

async function classify(uris: vscode.Uri[]): Promise<Selection> {
  const out: Selection = { uris: [], folders: new Set() };
  const seen = new Set<string>();
  for (const uri of uris) {
    if (seen.has(uri.toString())) {
      continue;
    }
    seen.add(uri.toString());
    let isDir = false;
    try {
      isDir = ((await vscode.workspace.fs.stat(uri)).type & vscode.FileType.Directory) !== 0;
    } catch {
      // Gone since it was selected: read it anyway so the result says FILE_NOT_FOUND.
    }
    if (isDir) {
      out.folders.add(out.uris.length);
    }
    out.uris.push(uri);
  }
  return out;
}

async function withNotification<T>(title: string, run: (token: vscode.CancellationToken) => Promise<T>): Promise<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (_progress, token) => run(token));
}

async function pickFiles(deps: ReadCommandDeps): Promise<vscode.Uri[] | undefined> {
  const found = await vscode.workspace.findFiles('**/*', undefined, MAX_PICK_FILES);
  if (found.length === 0) {
    void vscode.window.showInformationMessage('readerd: the workspace has no files to read.');
    return undefined;
  }
  const byRel = new Map<string, vscode.Uri>();
  const entries = pickEntries(found.map((uri) => {
    const rel = deps.display(uri.fsPath);
    byRel.set(rel, uri);
    return { rel, excluded: deps.excluded(uri.fsPath) };
  }));
  type Item = vscode.QuickPickItem & { uri: vscode.Uri; rel: string };
  const folderItems: Item[] = entries.folders.map((f) => ({
    label: `$(folder) ${f.rel}/`,
    description: `folder, ${f.files} file${f.files === 1 ? '' : 's'}, read with its subfolders`,
    uri: deps.locate(f.rel),
    rel: `${f.rel}/`,
  }));
  const fileItems: Item[] = entries.files.map((rel) => {
    const dir = path.posix.dirname(rel);
    return { label: path.posix.basename(rel), description: dir === '.' ? '' : dir, uri: byRel.get(rel)!, rel };
  });
  const items = [...folderItems, ...fileItems].sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  const left = entries.excluded.length;
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    matchOnDescription: true,
    title: `readerd: Read Files${left ? ` (${left} file${left === 1 ? '' : 's'} readerd.exclude refuses not listed)` : ''}`,
    placeHolder: 'Type to filter, Space or click to select files and folders (read with their subfolders), Enter to read them',
  });
  return picked?.map((p) => p.uri);
}

/** Runs the command; returns what was shown (undefined when nothing was read). */
export async function readFilesCommand(
  deps: ReadCommandDeps,
  clicked?: unknown,
  selected?: unknown,
  after?: { copy: () => PromiseLike<unknown> },
): Promise<ReadCommandOutcome | undefined> {
  let uris: vscode.Uri[] | undefined;
  if (Array.isArray(selected) && selected.length > 0 && selected.every((u) => u instanceof vscode.Uri)) {
    uris = selected as vscode.Uri[];
  } else if (clicked instanceof vscode.Uri) {
    uris = [clicked];
  } else {
    uris = await pickFiles(deps);
  }
  if (!uris || uris.length === 0) {
    return undefined;
  }
  const selection = await classify(uris);
  const asked = selection.uris.map((u) => deps.display(u.fsPath));
  const expand = selection.folders.size > 0 ? { maxFiles: FOLDER_MAX_FILES } : undefined;
  let planned: PlannedRead;
  let result: ReadResult;
  try {
    const plan = await withNotification('readerd: planning the read', (token) => deps.read({ paths: asked, expand, plan: true }, token));
    planned = choosePlanned(plan, selection.folders, (p) => deps.hidden(p));
    deps.log(`plan: ${planned.paths.length} files, ${planned.bytes} bytes, ${planned.tokens} tokens` +
      `${planned.hidden ? `, ${planned.hidden} hidden by files.exclude` : ''}${planned.binary ? `, ${planned.binary} binary` : ''}`);
    if (planned.paths.length === 0) {
      const why = planned.empty.map((e) => `${e.path}: ${e.error ?? e.code}`).join('; ');
      void vscode.window.showInformationMessage(`readerd: the selected folders have no files to read${why ? ` (${why})` : ''}.`);
      return undefined;
    }
    const limit = deps.confirmAboveTokens();
    if (needsConfirmation(planned.tokens, limit)) {
      const { message, detail } = confirmationText(planned, limit);
      const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, 'Read');
      if (choice !== 'Read') {
        deps.log(`read cancelled at the plan (${planned.tokens} tokens)`);
        return undefined;
      }
    }
    const paths = planned.paths;
    result = await withNotification(`readerd: reading ${paths.length} file${paths.length === 1 ? '' : 's'}`, (token) => deps.read({ paths }, token));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    deps.log(`read failed: ${message}`);
    void vscode.window.showErrorMessage(`readerd: ${message}`);
    return undefined;
  }
  const shown = await deps.results.show(result, `${result.files.length} file${result.files.length === 1 ? '' : 's'}`);
  let summary = readSummary(result, planned);
  const warning = summaryIsWarning(result, planned);
  if (after) {
    // "Add to Prompt Context": the result goes where "Copy as Prompt Context" puts it.
    await after.copy();
    summary = summary.replace(/^readerd: /, 'readerd: added to the prompt context (clipboard): ');
  }
  deps.log(summary);
  const show = warning ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  const buttons = after ? [] : ['Copy as prompt context'];
  void show(summary, ...buttons).then((choice) => {
    if (choice) {
      void vscode.commands.executeCommand('readerd.copyAsPromptContext');
    }
  });
  return { ...shown, planned, summary, warning };
}
