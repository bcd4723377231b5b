// "readerd: Read Files...": from the command palette (a multi-select quick pick over the
// workspace's files) or from the Explorer's context menu on a multi-selection of files and
// folders. The daemon first plans the read (`plan: true`; a folder expanded by the daemon,
// recursively, with its ignore rules and `expand.maxFiles`); the files the Explorer hides
// (files.exclude) are taken out of the plan; a plan past `readerd.confirmAboveTokens` estimated
// tokens is shown and asked about; then the planned files are read.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { ReadParams, ReadResult } from './protocol';
import { choosePlanned, confirmationText, needsConfirmation, PlannedRead, readSummary } from './readPlan';
import { ResultStore, ShownResult } from './results';

export interface ReadCommandDeps {
  /** How to write a file's path in the request: relative to its workspace folder (see WorkspaceRoots.display). */
  display(fsPath: string): string;
  read(params: Pick<ReadParams, 'paths' | 'expand' | 'plan'>, token: vscode.CancellationToken): Promise<ReadResult>;
  /** Whether the Explorer hides a path as `display` writes it (files.exclude). */
  hidden(displayed: string): boolean;
  /** `readerd.confirmAboveTokens`. */
  confirmAboveTokens(): number;
  results: ResultStore;
  log(line: string): void;
}

/** What the command showed, with its plan and summary. */
export interface ReadCommandOutcome extends ShownResult {
  planned: PlannedRead;
  summary: string;
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

async function pickFiles(display: (fsPath: string) => string): Promise<vscode.Uri[] | undefined> {
  const files = await vscode.workspace.findFiles('**/*', undefined, MAX_PICK_FILES);
  if (files.length === 0) {
    void vscode.window.showInformationMessage('readerd: the workspace has no files to read.');
    return undefined;
  }
  const items = files
    .map((uri) => {
      const rel = display(uri.fsPath);
      const dir = path.posix.dirname(rel);
      return { label: path.basename(uri.fsPath), description: dir === '.' ? '' : dir, uri, rel };
    })
    .sort((a, b) => a.rel.localeCompare(b.rel));
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    matchOnDescription: true,
    title: 'readerd: Read Files',
    placeHolder: 'Type to filter, Space or click to select files, Enter to read them',
  });
  return picked?.map((p) => p.uri);
}

/** Runs the command; returns what was shown (undefined when nothing was read). */
export async function readFilesCommand(
  deps: ReadCommandDeps,
  clicked?: unknown,
  selected?: unknown,
): Promise<ReadCommandOutcome | undefined> {
  let uris: vscode.Uri[] | undefined;
  if (Array.isArray(selected) && selected.length > 0 && selected.every((u) => u instanceof vscode.Uri)) {
    uris = selected as vscode.Uri[];
  } else if (clicked instanceof vscode.Uri) {
    uris = [clicked];
  } else {
    uris = await pickFiles((p) => deps.display(p));
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
  const summary = readSummary(result, planned);
  deps.log(summary);
  void vscode.window.showInformationMessage(summary, 'Copy as prompt context').then((choice) => {
    if (choice) {
      void vscode.commands.executeCommand('readerd.copyAsPromptContext');
    }
  });
  return { ...shown, planned, summary };
}
