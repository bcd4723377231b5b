// "readerd: Read Files...": from the command palette (a multi-select quick pick over the
// workspace's files) or from the Explorer's context menu on a multi-selection of files and
// folders. The daemon first plans the read (`plan: true`; a folder expanded by the daemon,
// recursively, with its ignore rules and `expand.maxFiles`); the files the Explorer hides
// (files.exclude) are taken out of the plan; a plan past `readerd.confirmAboveTokens` estimated
// tokens is shown and asked about; then the planned files are read. A folder gives at most
// `readerd.folderMaxFiles` files; the view says what was shown of how many and reads the rest
// (the same expansion from the first file not shown, `skip`). A read that fails offers Retry.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { ReaderdError } from '../daemon/client';
import { Exclusion } from '../exclusion';
import { ReadParams, ReadResult } from '../protocol';
import { choosePlanned, confirmationText, PlannedRead, readSummary, summaryIsWarning } from './readPlan';
import { formatCount, needsConfirmation } from '../format';
import { capText, FolderCap, folderCaps } from '../results/resultsHtml';
import { fileViews } from '../results/resultModel';
import { ResultStore, ShownResult } from '../results/results';
import { pickEntries } from './pickItems';
import { errorText } from '../say';

export interface ReadCommandDeps {
  /** How to write a file's path in the request: relative to its workspace folder (see WorkspaceRoots.display). */
  display(fsPath: string): string;
  read(params: Pick<ReadParams, 'paths' | 'expand' | 'plan' | 'skip'>, token: vscode.CancellationToken): Promise<ReadResult>;
  /** What is left out: the files the Explorer hides (taken out of a plan), those the quick pick does not offer. */
  exclusion: Pick<Exclusion, 'hidden' | 'excluded' | 'leftOutOfPick'>;
  /** `readerd.folderMaxFiles`: files a folder gives at most. */
  folderMaxFiles(): number;
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
  /** Folders the read capped. */
  caps: FolderCap[];
}

/** Files one expansion gives at most, whatever the setting: the daemon's own limit. */
export const EXPAND_LIMIT = 10_000;

const MAX_PICK_FILES = 20_000;

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
  const all = await vscode.workspace.findFiles('**/*', undefined, MAX_PICK_FILES);
  const out = await deps.exclusion.leftOutOfPick(all.map((u) => u.fsPath));
  const found = all.filter((u) => !out.ignored.has(u.fsPath) && !out.links.has(u.fsPath));
  if (found.length === 0) {
    void vscode.window.showInformationMessage('readerd: the workspace has no files to read.');
    return undefined;
  }
  const byRel = new Map<string, vscode.Uri>();
  const entries = pickEntries(found.map((uri) => {
    const rel = deps.display(uri.fsPath);
    byRel.set(rel, uri);
    return { rel, excluded: deps.exclusion.excluded(uri.fsPath) };
  }));
  type Item = vscode.QuickPickItem & { uri: vscode.Uri; rel: string };
  const cap = deps.folderMaxFiles();
  const folderItems: Item[] = entries.folders.map((f) => ({
    label: `$(folder) ${f.rel}/`,
    // What a read of it delivers: the first folderMaxFiles files, the rest a button away.
    description: f.files > cap
      ? `folder, ${formatCount(f.files)} files: ${formatCount(cap)} read (readerd.folderMaxFiles), the rest from the results view`
      : `folder, ${formatCount(f.files)} file${f.files === 1 ? '' : 's'}, read with its subfolders`,
    uri: deps.locate(f.rel),
    rel: `${f.rel}/`,
  }));
  const fileItems: Item[] = entries.files.map((rel) => {
    const dir = path.posix.dirname(rel);
    return { label: path.posix.basename(rel), description: dir === '.' ? '' : dir, uri: byRel.get(rel)!, rel };
  });
  const items = [...folderItems, ...fileItems].sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  const left = [
    entries.excluded.length ? `${entries.excluded.length} file${entries.excluded.length === 1 ? '' : 's'} readerd.exclude refuses` : '',
    out.ignored.size ? `${out.ignored.size} .gitignore leaves out` : '',
    out.links.size ? `${out.links.size} link${out.links.size === 1 ? '' : 's'} out of the workspace` : '',
  ].filter(Boolean);
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    matchOnDescription: true,
    title: `readerd: Read Files${left.length ? ` (${left.join(', ')} not listed)` : ''}`,
    placeHolder: 'Type to filter, Space or click to select files and folders (read with their subfolders), Enter to read them',
  });
  return picked?.map((p) => p.uri);
}

/** What a read asks: the paths as the request writes them, which are folders, where an expansion starts. */
export interface ReadRequest {
  asked: string[];
  folders: Set<number>;
  /** "Read the rest": the expansion from this file on, and files at most. */
  skip?: number;
  maxFiles?: number;
  /** The total of a folder read from `skip` on (its cap line says what was shown of it). */
  total?: number;
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
  return runRead(deps, { asked: selection.uris.map((u) => deps.display(u.fsPath)), folders: selection.folders }, after);
}

/** "Read the rest" of a capped folder: its files from the first one not shown, up to the daemon's limit. */
export async function readRestCommand(deps: ReadCommandDeps, rest: { path: string; skip: number; total: number }): Promise<ReadCommandOutcome | undefined> {
  return runRead(deps, { asked: [rest.path], folders: new Set([0]), skip: rest.skip, maxFiles: Math.min(EXPAND_LIMIT, rest.total), total: rest.total });
}

/** The folders capped by a read of `request`, with what was shown of how many. */
function capsOf(request: ReadRequest, planned: PlannedRead): FolderCap[] {
  const caps = folderCaps(planned.notices, () => (request.skip ?? 0) + 1);
  if (request.skip !== undefined && caps.length === 0 && request.total !== undefined) {
    // The rest read whole: its line says which files of how many these are.
    caps.push({ path: request.asked[0]!, first: request.skip + 1, shown: request.skip + planned.paths.length + planned.hidden + planned.binary, total: request.total });
  }
  return caps;
}

/** The last read that failed, for Retry. */
let lastFailed: { deps: ReadCommandDeps; request: ReadRequest; after?: { copy: () => PromiseLike<unknown> } } | undefined;

/** Retry: the last read that failed, again. */
export function retryLastRead(): Promise<ReadCommandOutcome | undefined> {
  const failed = lastFailed;
  lastFailed = undefined;
  return failed ? runRead(failed.deps, failed.request, failed.after) : Promise.resolve(undefined);
}

/** Plans, asks past readerd.confirmAboveTokens, reads and shows `request`; a failure offers Retry. */
export async function runRead(deps: ReadCommandDeps, request: ReadRequest, after?: { copy: () => PromiseLike<unknown> }): Promise<ReadCommandOutcome | undefined> {
  const { asked } = request;
  const cap = deps.folderMaxFiles();
  const expand = request.folders.size > 0 ? { maxFiles: request.maxFiles ?? cap } : undefined;
  let planned: PlannedRead;
  let result: ReadResult;
  let answeredAt = 0;
  try {
    const plan = await withNotification('readerd: planning the read', (token) => deps.read({ paths: asked, expand, plan: true, skip: request.skip }, token));
    planned = choosePlanned(plan, request.folders, (p) => deps.exclusion.hidden(p));
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
    result = await withNotification(`readerd: reading ${formatCount(paths.length)} file${paths.length === 1 ? '' : 's'}`, (token) => deps.read({ paths }, token));
    answeredAt = Date.now();
  } catch (error) {
    const message = errorText(error);
    deps.log(`read failed: ${message}`);
    if (error instanceof ReaderdError && error.kind === 'cancelled') {
      return undefined;
    }
    lastFailed = { deps, request, after };
    if (error instanceof ReaderdError && error.kind === 'start') {
      // The daemon could not start: its own message (with Locate readerd... and Open Settings) says so, once.
      return undefined;
    }
    // One message for the failure, with Retry (a daemon that died is back within a second).
    void vscode.window.showErrorMessage(message, 'Retry').then((choice) => {
      if (choice === 'Retry') {
        void vscode.commands.executeCommand('readerd.retryRead');
      }
    });
    return undefined;
  }
  const caps = capsOf(request, planned);
  const capped = new Set(caps.map((c) => c.path));
  const title = request.skip !== undefined && caps[0]
    ? `${capText(caps[0])}`
    : `${formatCount(result.files.length)} file${result.files.length === 1 ? '' : 's'}`;
  const shown = await deps.results.show(result, title, undefined, { caps, notices: planned.notices, cap, answeredAt });
  const hasPdf = result.files.some((f) => f.type === 'pdf' && f.truncated);
  const views = hasPdf ? fileViews(result) : [];
  const pagesOf = (index: number): number[] | undefined => views[index]?.blocks.filter((b) => b.label?.startsWith('page ')).map((b) => Number(b.label!.slice(5)));
  let summary = readSummary(result, planned, { caps: caps.filter((c) => c.shown < c.total).map(capText), capped, pagesOf });
  const ends = caps.filter((c) => c.shown >= c.total).map(capText);
  if (ends.length) {
    summary += `; ${ends.join('; ')}`;
  }
  const warning = summaryIsWarning(result, planned);
  if (after) {
    await after.copy();
  }
  deps.log(summary);
  if (!after) {
    const show = warning ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void show(summary, 'Copy as Prompt Context').then((choice) => {
      if (choice) {
        void vscode.commands.executeCommand('readerd.copyAsPromptContext');
      }
    });
  } else {
    summary = summary.replace(/^readerd: /, 'readerd: added to the prompt context: ');
  }
  return { ...shown, planned, summary, warning, caps };
}
