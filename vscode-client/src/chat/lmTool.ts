// The `readerd_read_files` language-model tool: agent mode reads many files, images and PDFs in
// one call. The XML comes back as a text part and each image as an image data part.

import * as vscode from 'vscode';
import { PathSpec, ReadResult } from '../protocol';
import { checkInput, ReadFilesToolInput, toolPaths } from './toolInput';

export type { ReadFilesToolInput };

export const TOOL_NAME = 'readerd_read_files';

type Reader = (paths: PathSpec[], options: { offset?: number; limit?: number; token: vscode.CancellationToken }) => Promise<ReadResult>;

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
    const paths = (Array.isArray(options.input?.paths) ? options.input.paths : [])
      .map((item) => (typeof item === 'string' ? item : String(item?.path ?? '')));
    const names = paths.slice(0, 3).join(', ') + (paths.length > 3 ? `, … (${paths.length} in all)` : '');
    return { invocationMessage: `Reading ${paths.length} file${paths.length === 1 ? '' : 's'} with readerd: ${names}` };
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<ReadFilesToolInput>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const input = checkInput(options.input);
    const result = await this.read(toolPaths(input), { offset: input.offset, limit: input.limit, token });
    return toolResult(result);
  }
}
