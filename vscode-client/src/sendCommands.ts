// "readerd: Copy as Prompt Context", "readerd: Add to Chat" and "readerd: Save Images...": what a
// result can be sent as. The clipboard holds text, so a copy names the pictures it leaves out and
// offers the two ways that carry them: the chat, whose `workbench.action.chat.open` command
// attaches files (pictures as images), and the pictures saved as files.

import * as vscode from 'vscode';
import { ReadResult } from './protocol';
import { copyConfirmation, imageFileNames, promptCopy } from './promptCopy';
import { needsConfirmation } from './readPlan';
import { ResultStore, ShownResult } from './results';

export interface SendDeps {
  results: ResultStore;
  /** `readerd.confirmAboveTokens`. */
  confirmAboveTokens(): number;
  /** The file a path of a result names. */
  locate(path: string): vscode.Uri;
  /** A folder of the extension's own to write pictures the chat takes as files. */
  storage: vscode.Uri;
  /** The folder the save dialog opens in. */
  defaultFolder(): vscode.Uri | undefined;
  log(line: string): void;
}

/** What "Add to Chat" attached, and what it could not. */
export interface ChatAttachment {
  files: string[];
  images: string[];
  /** Files not attached: those that were not read. */
  skipped: string[];
  opened: boolean;
}

function nothingYet(): undefined {
  void vscode.window.showInformationMessage('readerd: nothing has been read yet; run "readerd: Read Files..." first.');
  return undefined;
}

/** Copies the current result as text (asking first past readerd.confirmAboveTokens); returns what was copied. */
export async function copyAsPromptContext(deps: SendDeps): Promise<string | undefined> {
  const shown = deps.results.current();
  if (!shown) {
    return nothingYet();
  }
  const copy = promptCopy(shown.result);
  const limit = deps.confirmAboveTokens();
  if (needsConfirmation(copy.tokens, limit)) {
    const { message, detail } = copyConfirmation(shown.result, copy.tokens, limit);
    const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, 'Copy');
    if (choice !== 'Copy') {
      deps.log(`copy cancelled (${copy.tokens} tokens)`);
      return undefined;
    }
  }
  await vscode.env.clipboard.writeText(copy.text);
  deps.log(copy.message);
  if (copy.leftOut.length === 0) {
    vscode.window.setStatusBarMessage(copy.message, 6000);
    return copy.text;
  }
  void vscode.window.showInformationMessage(copy.message, 'Add to Chat', 'Save Images...').then((choice) => {
    if (choice === 'Add to Chat') {
      void vscode.commands.executeCommand('readerd.addToChat');
    } else if (choice === 'Save Images...') {
      void vscode.commands.executeCommand('readerd.saveImages');
    }
  });
  return copy.text;
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

/** Writes the pictures of `result` into `folder`, never over a file; returns the files written. */
export async function writeImages(result: ReadResult, folder: vscode.Uri, indices?: number[]): Promise<vscode.Uri[]> {
  const names = imageFileNames(result.images);
  const written: vscode.Uri[] = [];
  await vscode.workspace.fs.createDirectory(folder);
  for (const k of indices ?? result.images.map((_, i) => i)) {
    let target = vscode.Uri.joinPath(folder, names[k]!);
    for (let n = 2; await exists(target); n++) {
      target = vscode.Uri.joinPath(folder, names[k]!.replace(/(\.[^.]*)?$/, `-${n}$1`));
    }
    await vscode.workspace.fs.writeFile(target, Buffer.from(result.images[k]!.data, 'base64'));
    written.push(target);
  }
  return written;
}

/** "readerd: Save Images...": the current result's pictures into a folder the person picks. */
export async function saveImagesCommand(deps: SendDeps, folder?: vscode.Uri): Promise<vscode.Uri[] | undefined> {
  const shown = deps.results.current();
  if (!shown) {
    return nothingYet();
  }
  if (shown.result.images.length === 0) {
    void vscode.window.showInformationMessage('readerd: the last result has no images.');
    return [];
  }
  if (!folder) {
    const picked = await vscode.window.showOpenDialog({
      canSelectFiles: false, canSelectFolders: true, canSelectMany: false,
      defaultUri: deps.defaultFolder(), openLabel: 'Save Images Here', title: 'readerd: Save Images',
    });
    if (!picked?.[0]) {
      return undefined;
    }
    folder = picked[0];
  }
  const written = await writeImages(shown.result, folder);
  deps.log(`saved ${written.length} images to ${folder.fsPath}`);
  void vscode.window.showInformationMessage(`readerd: saved ${written.length} image${written.length === 1 ? '' : 's'} to ${folder.fsPath}: ${written.map((u) => u.path.split('/').pop()).join(', ')}.`);
  return written;
}

/** Picture files the chat attaches as images (it decides by the name). */
const CHAT_IMAGE = /\.(png|jpe?g|gif|bmp|webp)$/i;

/**
 * "readerd: Add to Chat": opens VS Code's chat with the files of the current result attached:
 * a text file cut by the read as the lines shown, a picture file as itself, the pictures the
 * daemon made (PDF pages, tiles, converted formats) written under the extension's storage and
 * attached as image files, a file that was not read left out and named.
 */
export async function addToChatCommand(deps: SendDeps, shown: ShownResult | undefined = deps.results.current()): Promise<ChatAttachment | undefined> {
  if (!shown) {
    return nothingYet();
  }
  const { result } = shown;
  // The workbench takes a range as its own IRange (1-based), not as a vscode.Range.
  const attach: Array<vscode.Uri | { uri: vscode.Uri; range: { startLineNumber: number; startColumn: number; endLineNumber: number; endColumn: number } }> = [];
  const out: ChatAttachment = { files: [], images: [], skipped: [], opened: false };
  const made: number[] = [];
  for (const file of result.files) {
    if (file.code !== undefined || file.omitted || file.unchanged) {
      out.skipped.push(file.path);
      continue;
    }
    const uri = deps.locate(file.path);
    if (file.type === 'image' && CHAT_IMAGE.test(file.path) && !file.tiles) {
      attach.push(uri);
      out.images.push(file.path);
      continue;
    }
    if (file.type === 'image') {
      // A picture the chat does not take as it is (TIFF, SVG, tiles): the daemon's pictures instead.
      result.images.forEach((img, k) => img.path === file.path && made.push(k));
      continue;
    }
    if (file.type === 'text' && file.truncated && file.shown) {
      attach.push({ uri, range: { startLineNumber: file.shown[0], startColumn: 1, endLineNumber: file.shown[1], endColumn: 1_000_000 } });
    } else {
      attach.push(uri);
    }
    out.files.push(file.path);
    result.images.forEach((img, k) => img.path === file.path && made.push(k));
  }
  if (made.length > 0) {
    const folder = vscode.Uri.joinPath(deps.storage, 'chat-images', String(Date.now()));
    const written = await writeImages(result, folder, made);
    attach.push(...written);
    out.images.push(...written.map((u) => u.path.split('/').pop()!));
  }
  if (attach.length === 0) {
    void vscode.window.showInformationMessage('readerd: nothing to add to the chat: no file of the result was read.');
    return out;
  }
  try {
    await vscode.commands.executeCommand('workbench.action.chat.open', { attachFiles: attach });
    out.opened = true;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    deps.log(`add to chat failed: ${message}`);
    void vscode.window.showErrorMessage(`readerd: this window's chat cannot take attachments (${message}). Copy as Prompt Context and Save Images do the same by hand.`);
    return out;
  }
  const skipped = out.skipped.length ? `; not read, so not added: ${out.skipped.join(', ')}` : '';
  const summary = `readerd: added ${out.files.length} file${out.files.length === 1 ? '' : 's'} and ${out.images.length} image${out.images.length === 1 ? '' : 's'} to the chat${skipped}.`;
  deps.log(summary);
  vscode.window.setStatusBarMessage(summary, 8000);
  return out;
}
