// "readerd: Copy as Prompt Context", "readerd: Add to Chat" and "readerd: Save Images...": what a
// result can be sent as. The clipboard holds text, so a copy names the pictures it leaves out and
// offers the two ways that carry them: the chat, whose `workbench.action.chat.open` command
// attaches files (pictures as images), and the pictures saved as files.

import * as vscode from 'vscode';
import { ReadResult } from '../protocol';
import { copyConfirmation, imageFileNames, promptCopy } from './promptCopy';
import { needsConfirmation } from '../format';
import { ResultStore, ShownResult } from './results';
import { FileView, fileViews, numberedLines } from './resultModel';
import { listSome, plural } from '../summary';

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
  /** Files attached as readerd's text of them (PDF, DOCX, XLSX, ...), not as themselves. */
  asText: string[];
  opened: boolean;
  /** What the message said. */
  message?: string;
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

/** Encodings whose file the chat reads as readerd does (it reads files as UTF-8). */
const UTF8 = /^(utf-8|us-ascii|ascii)$/i;

/** The text readerd read of a file, as the file the chat attaches: its parts labelled, no line numbers. */
export function readerdText(view: FileView): string {
  const parts = view.blocks.filter((b) => b.text !== '').map((b) => {
    const text = numberedLines(b.text, undefined).map((l) => l.text).join('\n');
    return b.label ? `[${b.label}]\n${text}` : text;
  });
  return `${parts.join('\n\n')}\n`;
}

/** What the chat gets of a file: the file itself (text the chat reads as it is), or readerd's text of it. */
export function chatForm(file: { type?: string; encoding?: string; path: string; tiles?: number }): 'file' | 'text' | 'image' | 'pictures' {
  if (file.type === 'image') {
    return CHAT_IMAGE.test(file.path) && !file.tiles ? 'image' : 'pictures';
  }
  if ((file.type === 'text' || file.type === undefined) && (file.encoding === undefined || UTF8.test(file.encoding))) {
    return 'file';
  }
  return 'text';
}

/**
 * "readerd: Add to Chat": opens VS Code's chat with what readerd read of the current result: a
 * UTF-8 text file as itself (a cut one as the lines shown), any other file (PDF, DOCX, XLSX,
 * notebooks, legacy encodings) as readerd's text of it written to a file under the extension's
 * storage (`manual.pdf.txt`), never the binary file; a picture the chat takes as itself, the
 * pictures readerd made (PDF pages, tiles, converted formats) as image files. A file not read is
 * left out and named; the message says what was attached, and how.
 */
export async function addToChatCommand(deps: SendDeps, shown: ShownResult | undefined = deps.results.current()): Promise<ChatAttachment | undefined> {
  if (!shown) {
    return nothingYet();
  }
  const { result } = shown;
  // The workbench takes a range as its own IRange (1-based), not as a vscode.Range.
  const attach: Array<vscode.Uri | { uri: vscode.Uri; range: { startLineNumber: number; startColumn: number; endLineNumber: number; endColumn: number } }> = [];
  const out: ChatAttachment = { files: [], images: [], skipped: [], asText: [], opened: false };
  const made: number[] = [];
  const views = fileViews(result);
  const folder = vscode.Uri.joinPath(deps.storage, 'chat', String(Date.now()));
  const names = new Set<string>();
  for (const [index, file] of result.files.entries()) {
    if (file.code !== undefined || file.omitted || file.unchanged) {
      out.skipped.push(file.path);
      continue;
    }
    const uri = deps.locate(file.path);
    const form = chatForm(file);
    if (form === 'image') {
      attach.push(uri);
      out.images.push(file.path);
      continue;
    }
    if (form === 'text') {
      // readerd's reading of it, not the file: the chat would take a PDF or DOCX as bytes.
      let name = `${file.path.split('/').pop()!}.txt`;
      for (let k = 2; names.has(name); k++) {
        name = `${file.path.split('/').pop()!}-${k}.txt`;
      }
      names.add(name);
      const target = vscode.Uri.joinPath(folder, name);
      await vscode.workspace.fs.createDirectory(folder);
      await vscode.workspace.fs.writeFile(target, Buffer.from(readerdText(views[index]!), 'utf8'));
      attach.push(target);
      out.asText.push(file.path);
    } else if (form === 'file') {
      if (file.truncated && file.shown) {
        attach.push({ uri, range: { startLineNumber: file.shown[0], startColumn: 1, endLineNumber: file.shown[1], endColumn: 1_000_000 } });
      } else {
        attach.push(uri);
      }
      out.files.push(file.path);
    }
    result.images.forEach((img, k) => img.path === file.path && made.push(k));
  }
  if (made.length > 0) {
    const written = await writeImages(result, vscode.Uri.joinPath(folder, 'images'), made);
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
  const said: string[] = [];
  if (out.files.length) {
    said.push(`${plural(out.files.length, 'file')} as ${out.files.length === 1 ? 'it is' : 'they are'}`);
  }
  if (out.asText.length) {
    said.push(`${listSome(out.asText, 3)} as readerd's text`);
  }
  if (out.images.length) {
    said.push(`${plural(out.images.length, 'picture')} (the chat keeps them for a model that takes images)`);
  }
  const skipped = out.skipped.length ? `; not read, so not added: ${listSome(out.skipped, 3)}` : '';
  out.message = `readerd: added to the chat: ${said.join(', ')}${skipped}.`;
  deps.log(out.message);
  void vscode.window.showInformationMessage(out.message);
  return out;
}
