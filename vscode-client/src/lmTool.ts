// The `readerd_read_files` language-model tool: agent mode reads many files, images and PDFs in
// one call. The XML comes back as a text part and each image as an image data part.

import * as vscode from 'vscode';
import { PathSpec, ReadResult } from './protocol';

export const TOOL_NAME = 'readerd_read_files';

export interface ReadFilesToolInput {
  paths: string[];
  offset?: number;
  limit?: number;
  pages?: string;
}

type Reader = (paths: PathSpec[], options: { offset?: number; limit?: number; token: vscode.CancellationToken }) => Promise<ReadResult>;

function checkInput(input: unknown): ReadFilesToolInput {
  const i = input as Partial<ReadFilesToolInput> | undefined;
  if (!i || !Array.isArray(i.paths) || i.paths.length === 0 || !i.paths.every((p) => typeof p === 'string' && p !== '')) {
    throw new Error('readerd_read_files: "paths" must be a non-empty array of path strings');
  }
  for (const key of ['offset', 'limit'] as const) {
    const v = i[key];
    if (v !== undefined && (!Number.isInteger(v) || v < 1)) {
      throw new Error(`readerd_read_files: "${key}" must be an integer >= 1`);
    }
  }
  if (i.pages !== undefined && typeof i.pages !== 'string') {
    throw new Error('readerd_read_files: "pages" must be a string such as "1-5"');
  }
  return i as ReadFilesToolInput;
}

/** Builds the tool's result: the XML, then one image part per image. */
export function toolResult(result: ReadResult): vscode.LanguageModelToolResult {
  const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelDataPart> = [
    new vscode.LanguageModelTextPart(result.xml),
  ];
  const DataPart = (vscode as { LanguageModelDataPart?: typeof vscode.LanguageModelDataPart }).LanguageModelDataPart;
  for (const image of result.images) {
    if (DataPart && typeof DataPart.image === 'function') {
      parts.push(DataPart.image(Buffer.from(image.data, 'base64'), image.mediaType));
    }
  }
  if (result.images.length > 0 && !DataPart) {
    parts.push(new vscode.LanguageModelTextPart(`(${result.images.length} image(s) not attached: this VS Code cannot return images from tools)`));
  }
  return new vscode.LanguageModelToolResult(parts);
}

export class ReadFilesTool implements vscode.LanguageModelTool<ReadFilesToolInput> {
  constructor(private readonly read: Reader) {}

  prepareInvocation(
    options: vscode.LanguageModelToolInvocationPrepareOptions<ReadFilesToolInput>,
  ): vscode.PreparedToolInvocation {
    const paths = Array.isArray(options.input?.paths) ? options.input.paths : [];
    const names = paths.slice(0, 3).join(', ') + (paths.length > 3 ? `, … (${paths.length} in all)` : '');
    return { invocationMessage: `Reading ${paths.length} file${paths.length === 1 ? '' : 's'} with readerd: ${names}` };
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<ReadFilesToolInput>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const input = checkInput(options.input);
    const paths: PathSpec[] = input.pages ? input.paths.map((path) => ({ path, pages: input.pages })) : input.paths;
    const result = await this.read(paths, { offset: input.offset, limit: input.limit, token });
    return toolResult(result);
  }
}
