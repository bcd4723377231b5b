// "readerd: Read Files...": from the command palette (a multi-select quick pick over the
// workspace's files) or from the Explorer's context menu on a multi-selection of files and
// folders (a folder gives its files, one level, respecting files.exclude).

import * as path from 'node:path';
import * as vscode from 'vscode';
import { ReadResult } from './protocol';
import { formatBytes, ResultStore, ShownResult } from './results';

export interface ReadCommandDeps {
  /** How to write a file's path in the request: relative to its workspace folder (see WorkspaceRoots.display). */
  display(fsPath: string): string;
  read(paths: string[], token: vscode.CancellationToken): Promise<ReadResult>;
  results: ResultStore;
  log(line: string): void;
}

const MAX_PICK_FILES = 20_000;

/** Files directly in a folder, as VS Code lists them (files.exclude applies), sorted. */
export async function filesInFolder(folder: vscode.Uri): Promise<vscode.Uri[]> {
  const found = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, '*'));
  return found.sort((a, b) => a.fsPath.localeCompare(b.fsPath));
}

async function expandSelection(uris: vscode.Uri[]): Promise<vscode.Uri[]> {
  const out: vscode.Uri[] = [];
  const seen = new Set<string>();
  const add = (u: vscode.Uri): void => {
    if (!seen.has(u.toString())) {
      seen.add(u.toString());
      out.push(u);
    }
  };
  for (const uri of uris) {
    let isDir = false;
    try {
      isDir = ((await vscode.workspace.fs.stat(uri)).type & vscode.FileType.Directory) !== 0;
    } catch {
      // Gone since it was selected: read it anyway so the result says FILE_NOT_FOUND.
    }
    if (isDir) {
      (await filesInFolder(uri)).forEach(add);
    } else {
      add(uri);
    }
  }
  return out;
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
): Promise<ShownResult | undefined> {
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
  const files = await expandSelection(uris);
  if (files.length === 0) {
    void vscode.window.showInformationMessage('readerd: the selected folders have no files to read.');
    return undefined;
  }
  const paths = files.map((u) => deps.display(u.fsPath));
  let result: ReadResult;
  try {
    result = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `readerd: reading ${paths.length} file${paths.length === 1 ? '' : 's'}`,
        cancellable: true,
      },
      (_progress, token) => deps.read(paths, token),
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    deps.log(`read failed: ${message}`);
    void vscode.window.showErrorMessage(`readerd: ${message}`);
    return undefined;
  }
  const shown = await deps.results.show(result, `${paths.length} files`);
  const failed = result.files.filter((f) => f.code !== undefined);
  const summary = `readerd: read ${result.files.length - failed.length} of ${result.files.length} file${result.files.length === 1 ? '' : 's'}` +
    ` (${result.lines} lines, ${formatBytes(result.bytes)}${result.images.length ? `, ${result.images.length} image${result.images.length === 1 ? '' : 's'}` : ''})` +
    (failed.length ? `; failed: ${failed.slice(0, 3).map((f) => `${f.path} (${f.code})`).join(', ')}${failed.length > 3 ? ', …' : ''}` : '');
  deps.log(summary);
  void vscode.window.showInformationMessage(summary, 'Copy as prompt context').then((choice) => {
    if (choice) {
      void vscode.commands.executeCommand('readerd.copyAsPromptContext');
    }
  });
  return shown;
}
