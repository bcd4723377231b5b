// "readerd: Ask About Images...": pick image files and PDFs (or take the Explorer's selection, a
// folder giving the pictures under it),
// ask a question, and show the vision model's answer (`readImages`) in a panel with the
// pictures sent and each file that could not be (the key: daemon/visionKey.ts). The
// `readerd_read_images` language-model tool asks the same way.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { ReaderdError } from '../daemon/client';
import { FileInfo, ReadImagesParams, ReadImagesResult, SentImage } from '../protocol';
import { visionHtml, VisionOutcome } from './visionAnswer';
import { branded } from '../say';

export const VISION_TOOL_NAME = 'readerd_read_images';

/** Paths one readImages takes at most. */
const MAX_IMAGES = 100;
const IMAGE_GLOB = '**/*.{png,PNG,jpg,JPG,jpeg,JPEG,gif,GIF,webp,WEBP,bmp,BMP,tif,tiff,TIF,TIFF,ico,svg,SVG,pdf,PDF}';

export type ImagesAsker = (params: Omit<ReadImagesParams, 'cwd'>, token: vscode.CancellationToken) => Promise<ReadImagesResult>;

export interface VisionCommandDeps {
  display(fsPath: string): string;
  ask: ImagesAsker;
  log(line: string): void;
}

/** The outcome of a call: the answer, or the error with the files its data names. */
export async function askOutcome(ask: ImagesAsker, params: Omit<ReadImagesParams, 'cwd'>, token: vscode.CancellationToken): Promise<VisionOutcome> {
  try {
    const result = await ask(params, token);
    return { query: params.query, result, files: result.files, images: result.images };
  } catch (error) {
    if (error instanceof ReaderdError && (error.kind === 'cancelled')) {
      throw error;
    }
    const data = (error instanceof ReaderdError ? error.data : undefined) as { files?: FileInfo[]; images?: SentImage[] } | undefined;
    return {
      query: params.query,
      error: error instanceof Error ? error.message : String(error),
      files: data?.files ?? [],
      images: data?.images ?? [],
    };
  }
}

async function pickImages(display: (fsPath: string) => string): Promise<vscode.Uri[] | undefined> {
  const files = await vscode.workspace.findFiles(IMAGE_GLOB, undefined, 5000);
  if (files.length === 0) {
    void vscode.window.showInformationMessage('readerd: the workspace has no images or PDFs.');
    return undefined;
  }
  const items = files.map((uri) => {
    const rel = display(uri.fsPath);
    const dir = path.posix.dirname(rel);
    return { label: path.basename(uri.fsPath), description: dir === '.' ? '' : dir, uri, rel };
  }).sort((a, b) => a.rel.localeCompare(b.rel));
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    matchOnDescription: true,
    title: 'readerd: Ask About Images',
    placeHolder: 'Select images and PDFs (up to 100), Enter to go on to the question',
  });
  return picked?.map((p) => p.uri);
}

/** Arguments for a run without prompts: `{uris, query, detail?, pages?}`. */
export interface AskArguments {
  uris?: vscode.Uri[];
  query?: string;
  detail?: 'auto' | 'low' | 'high';
  pages?: string;
}

let panel: vscode.WebviewPanel | undefined;

/** Pictures a selected folder holds (recursively, files.exclude applied), at most the 100 readImages takes. */
async function withFolderImages(uris: vscode.Uri[]): Promise<vscode.Uri[]> {
  const out: vscode.Uri[] = [];
  for (const uri of uris) {
    let isDir = false;
    try {
      isDir = ((await vscode.workspace.fs.stat(uri)).type & vscode.FileType.Directory) !== 0;
    } catch {
      // Gone: asked anyway, so that the answer names it FILE_NOT_FOUND.
    }
    if (isDir) {
      const found = await vscode.workspace.findFiles(new vscode.RelativePattern(uri, IMAGE_GLOB), undefined, MAX_IMAGES);
      out.push(...found.sort((a, b) => a.fsPath.localeCompare(b.fsPath)));
    } else {
      out.push(uri);
    }
  }
  return out.slice(0, MAX_IMAGES);
}

/** Runs the command: from the Explorer (clicked, selected), the palette, or with AskArguments. */
export async function askAboutImagesCommand(deps: VisionCommandDeps, clicked?: unknown, selected?: unknown): Promise<VisionOutcome | undefined> {
  let args: AskArguments = {};
  if (Array.isArray(selected) && selected.length > 0 && selected.every((u) => u instanceof vscode.Uri)) {
    args.uris = selected as vscode.Uri[];
  } else if (clicked instanceof vscode.Uri) {
    args.uris = [clicked];
  } else if (clicked && typeof clicked === 'object') {
    args = clicked as AskArguments;
  }
  const chosen = args.uris ?? await pickImages((p) => deps.display(p));
  if (!chosen || chosen.length === 0) {
    return undefined;
  }
  const uris = await withFolderImages(chosen);
  if (uris.length === 0) {
    void vscode.window.showInformationMessage('readerd: the selected folders hold no images or PDFs.');
    return undefined;
  }
  const paths = uris.map((u) => deps.display(u.fsPath));
  const query = args.query ?? await vscode.window.showInputBox({
    title: `readerd: Ask About ${paths.length === 1 ? path.basename(paths[0]!) : `${paths.length} Files`}`,
    prompt: 'The question for the vision model (readerd.vision.* settings)',
    placeHolder: 'What does the y axis measure, and what is its range?',
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? 'Ask a question' : undefined),
  });
  if (!query) {
    return undefined;
  }
  const outcome = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `readerd: asking about ${paths.length} file${paths.length === 1 ? '' : 's'}`, cancellable: true },
    (_progress, token) => askOutcome(deps.ask, { paths, query, detail: args.detail, pages: args.pages }, token),
  ).then(undefined, (error: unknown) => {
    deps.log(`readImages cancelled: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  });
  if (!outcome) {
    return undefined;
  }
  deps.log(outcome.result
    ? `readImages: ${outcome.images.length} picture(s) sent, answer of ${outcome.result.answer.length} characters from ${outcome.result.model ?? 'an unnamed model'}`
    : `readImages failed: ${outcome.error}`);
  if (!panel) {
    panel = vscode.window.createWebviewPanel('readerd.vision', 'readerd: Vision Answer', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, { enableScripts: false });
    panel.onDidDispose(() => (panel = undefined));
  } else {
    panel.reveal(undefined, false);
  }
  panel.webview.html = visionHtml(outcome, panel.webview.cspSource);
  if (!outcome.result) {
    void vscode.window.showErrorMessage(branded(outcome.error ?? 'the vision model did not answer'));
  }
  return outcome;
}

export interface ReadImagesToolInput {
  paths: string[];
  query: string;
  detail?: 'auto' | 'low' | 'high';
  pages?: string;
}

function checkInput(input: unknown): ReadImagesToolInput {
  const i = input as Partial<ReadImagesToolInput> | undefined;
  if (!i || !Array.isArray(i.paths) || i.paths.length === 0 || !i.paths.every((p) => typeof p === 'string' && p !== '')) {
    throw new Error(`${VISION_TOOL_NAME}: "paths" must be a non-empty array of path strings`);
  }
  if (typeof i.query !== 'string' || i.query.trim() === '') {
    throw new Error(`${VISION_TOOL_NAME}: "query" must be a non-empty question`);
  }
  if (i.detail !== undefined && !['auto', 'low', 'high'].includes(i.detail)) {
    throw new Error(`${VISION_TOOL_NAME}: "detail" must be "auto", "low" or "high"`);
  }
  if (i.pages !== undefined && typeof i.pages !== 'string') {
    throw new Error(`${VISION_TOOL_NAME}: "pages" must be a string such as "1-5"`);
  }
  return i as ReadImagesToolInput;
}

/** The `readerd_read_images` tool: the `<ReadImagesResult>` XML (or the error and the files' XML) as text. */
export class ReadImagesTool implements vscode.LanguageModelTool<ReadImagesToolInput> {
  constructor(private readonly ask: ImagesAsker) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<ReadImagesToolInput>): vscode.PreparedToolInvocation {
    const paths = Array.isArray(options.input?.paths) ? options.input.paths : [];
    const names = paths.slice(0, 3).join(', ') + (paths.length > 3 ? `, … (${paths.length} in all)` : '');
    return { invocationMessage: `Asking the vision model about ${names}` };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<ReadImagesToolInput>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const input = checkInput(options.input);
    try {
      const result = await this.ask({ paths: input.paths, query: input.query, detail: input.detail, pages: input.pages }, token);
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(result.xml)]);
    } catch (error) {
      if (!(error instanceof ReaderdError) || error.kind !== 'rpc') {
        throw error;
      }
      const data = error.data as { xml?: string } | undefined;
      return new vscode.LanguageModelToolResult([
        new vscode.LanguageModelTextPart(`${VISION_TOOL_NAME} failed: ${error.message}${data?.xml ? `\n${data.xml}` : ''}`),
      ]);
    }
  }
}

