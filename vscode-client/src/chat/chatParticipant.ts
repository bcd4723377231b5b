// The `@readerd` chat participant: `@readerd explain @src/server.c and @docs/` reads every
// mention (and every `#file` reference) in one request and sends the prompt with the contents,
// images included, to the model chosen in the chat view, streaming its answer with references to
// the files read. `/read` shows what the mentions give without asking a model; `/images` sends
// the pictures only (PDF pages rendered) with the question. Registered only where VS Code has a
// chat view (`vscode.chat`); elsewhere nothing is registered and nothing fails.

import * as vscode from 'vscode';
import { failureVerb, reasonInWords } from '../summary';
import { expansionSummary } from '../mentions/expandCommand';
import type { ExpandedMessage } from '../mentions/mentions';

export const PARTICIPANT_ID = 'readerd.chat';

export interface ChatDeps {
  expand(text: string, options: { extraPaths: string[]; render: boolean; token: vscode.CancellationToken }): Promise<ExpandedMessage>;
  /** How a file is written in a request (relative to its workspace folder). */
  display(fsPath: string): string;
  /** The file a path of the result names. */
  locate(written: string): vscode.Uri;
  log(line: string): void;
}

/** The files of `#file` references and the like, as paths to read. */
function referencedPaths(request: vscode.ChatRequest, display: (fsPath: string) => string): string[] {
  const out: string[] = [];
  for (const ref of request.references) {
    const uri = ref.value instanceof vscode.Uri ? ref.value : ref.value instanceof vscode.Location ? ref.value.uri : undefined;
    if (uri?.scheme === 'file') {
      out.push(display(uri.fsPath));
    }
  }
  return out;
}

/** The prompt without the `#file:...` text of references (their content is appended instead). */
function promptWithoutReferences(request: vscode.ChatRequest, display: (fsPath: string) => string): string {
  let prompt = request.prompt;
  // References are sorted from the end of the prompt: cutting them keeps the earlier ranges right.
  for (const ref of request.references) {
    const uri = ref.value instanceof vscode.Uri ? ref.value : ref.value instanceof vscode.Location ? ref.value.uri : undefined;
    if (ref.range && uri?.scheme === 'file') {
      prompt = `${prompt.slice(0, ref.range[0])}'${display(uri.fsPath)}' (see below for file content)${prompt.slice(ref.range[1])}`;
    }
  }
  return prompt;
}

export async function handleChatRequest(
  deps: ChatDeps,
  request: vscode.ChatRequest,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  const extraPaths = referencedPaths(request, deps.display);
  const images = request.command === 'images';
  stream.progress('Reading the mentioned files with readerd');
  let out: ExpandedMessage;
  try {
    out = await deps.expand(promptWithoutReferences(request, deps.display), { extraPaths, render: images, token });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    stream.markdown(`readerd could not read the mentioned files: ${message}`);
    return { errorDetails: { message } };
  }
  const files = out.result?.files ?? [];
  for (const file of files) {
    if (!file.code) {
      stream.reference(deps.locate(file.path));
    }
  }
  const summary = out.paths.length ? expansionSummary(out) : 'nothing mentioned';
  deps.log(`chat: ${summary}`);
  if (request.command === 'read') {
    const lines = files.map((f) => `- \`${f.path}\`: ${f.code ? `**${failureVerb(f)}**: ${reasonInWords(f)}` : `${f.type}, ${f.lines ?? 0} lines, ${f.bytes ?? 0} bytes`}`);
    stream.markdown(`readerd ${summary}.\n\n${lines.join('\n')}\n`);
    return { metadata: { command: 'read', paths: out.paths } };
  }
  if (out.paths.length === 0) {
    stream.markdown('Mention files or folders with `@` (`@src/main.c`, `@/docs/`, `@"/docs/my file.md"`) or `#file`, and readerd reads them for the model.\n\n');
  }
  if (images && out.images.length === 0) {
    stream.markdown('None of the mentioned files gave a picture (images, PDF pages, SVG).');
    return { metadata: { command: 'images', paths: out.paths } };
  }
  // A #file reference that was not read says so where it was, as a mention does.
  files.forEach((f) => {
    const why = reasonInWords(f);
    if (why && extraPaths.includes(f.path)) {
      out.text = out.text.split(`'${f.path}' (see below for file content)`).join(`'${f.path}' (not read: ${why})`);
    }
  });
  const question = images ? `${promptWithoutReferences(request, deps.display)}\n\n(${out.images.length} picture${out.images.length === 1 ? '' : 's'} attached: ${out.images.map((i) => (i.page !== undefined ? `${i.path} page ${i.page}` : i.path)).join(', ')})` : out.text;
  // What goes to the model, said before its answer: readerd's text of each file (never the PDF,
  // DOCX or XLSX itself) and the pictures.
  const sent = files.filter((f) => !f.code).map((f) => `\`${f.path}\``);
  if (sent.length || out.images.length) {
    stream.markdown(`*readerd sent ${images ? 'the pictures of' : 'its reading of'} ${sent.join(', ') || 'nothing'}` +
      `${out.images.length ? ` with ${out.images.length} picture${out.images.length === 1 ? '' : 's'}` : ''}.*\n\n`);
  }
  const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelDataPart> = [new vscode.LanguageModelTextPart(question)];
  const DataPart = (vscode as { LanguageModelDataPart?: typeof vscode.LanguageModelDataPart }).LanguageModelDataPart;
  if (DataPart) {
    for (const image of out.images) {
      parts.push(DataPart.image(Buffer.from(image.data, 'base64'), image.mediaType));
    }
  }
  try {
    const response = await request.model.sendRequest([vscode.LanguageModelChatMessage.User(parts)], {}, token);
    for await (const chunk of response.text) {
      stream.markdown(chunk);
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    stream.markdown(`The language model answered an error: ${message}`);
    return { errorDetails: { message }, metadata: { paths: out.paths } };
  }
  return { metadata: { command: request.command, paths: out.paths } };
}

/** Registers the participant where a chat view exists; undefined elsewhere. */
export function registerChatParticipant(deps: ChatDeps): vscode.Disposable | undefined {
  const chat = (vscode as { chat?: typeof vscode.chat }).chat;
  if (typeof chat?.createChatParticipant !== 'function') {
    deps.log('this VS Code has no chat API: the @readerd participant is not registered');
    return undefined;
  }
  try {
    const participant = chat.createChatParticipant(PARTICIPANT_ID, (request, _context, stream, token) => handleChatRequest(deps, request, stream, token));
    participant.iconPath = new vscode.ThemeIcon('files');
    return participant;
  } catch (error) {
    deps.log(`the @readerd participant could not be registered: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}
