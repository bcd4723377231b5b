// "readerd: Copy Prompt with Mentions Expanded" and "readerd: Open Expanded Prompt": the
// mentions of the active editor's selection (else the whole document) read in one request, the
// prompt with the <Content> blocks appended copied or opened, and a message saying what was read.

import * as vscode from 'vscode';
import { failureVerb, listSome, reasonInWords } from '../summary';
import type { ExpandedMessage } from './mentions';
import { formatBytes, ResultStore, ShownResult } from '../results/results';
import { branded } from '../say';

export interface ExpandCommandDeps {
  expand(text: string, token: vscode.CancellationToken): Promise<ExpandedMessage>;
  results: ResultStore;
  log(line: string): void;
}

/** What the commands return (for the tests and other extensions). */
export interface ExpandedPrompt extends ExpandedMessage {
  summary: string;
  shown?: ShownResult;
}

/** "expanded 3 mentions: 4 files, 120 lines, 3.2 KB, 1 image; x.c not read: no such file" */
export function expansionSummary(out: ExpandedMessage): string {
  const files = out.result?.files ?? [];
  const failed = files.filter((f) => f.code !== undefined);
  const n = (count: number, what: string): string => `${count} ${what}${count === 1 ? '' : 's'}`;
  return `expanded ${n(out.mentions.length, 'mention')}: ${n(files.length - failed.length, 'file')}, ` +
    `${n(out.result?.lines ?? 0, 'line')}, ${formatBytes(out.result?.bytes ?? 0)}, ${n(out.images.length, 'image')}` +
    (failed.length ? `; ${listSome(failed.map((f) => `${f.path} ${failureVerb(f)}: ${reasonInWords(f)}`), 5)}` : '');
}

/** Runs one of the two commands on the active editor. */
export async function expandPromptCommand(deps: ExpandCommandDeps, target: 'copy' | 'open'): Promise<ExpandedPrompt | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage('readerd: open the prompt to expand in an editor first.');
    return undefined;
  }
  const text = editor.selection.isEmpty ? editor.document.getText() : editor.document.getText(editor.selection);
  let out: ExpandedMessage;
  try {
    out = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'readerd: reading the mentioned files', cancellable: true },
      (_progress, token) => deps.expand(text, token),
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    deps.log(`expanding mentions failed: ${message}`);
    void vscode.window.showErrorMessage(branded(message));
    return undefined;
  }
  if (out.mentions.length === 0) {
    void vscode.window.showInformationMessage('readerd: no @-mentions here (type @ to mention a file or folder).');
    return { ...out, summary: 'no mentions' };
  }
  const summary = expansionSummary(out);
  deps.log(summary);
  // A mention that was not read is a warning: the prompt says so where it was mentioned.
  const show = out.result?.files.some((f) => f.code !== undefined) ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  let shown: ShownResult | undefined;
  if (target === 'copy') {
    await vscode.env.clipboard.writeText(out.text);
    const images = out.images.length
      ? ` The clipboard takes text only: ${out.images.length} image${out.images.length === 1 ? ' is' : 's are'} left out (Open Expanded Prompt shows them).`
      : '';
    void show(`readerd: copied the prompt, ${summary}.${images}`);
  } else {
    const result = out.result ?? { xml: '', images: [], files: [], bytes: 0, lines: 0 };
    shown = await deps.results.show({ ...result, xml: out.text, images: out.images }, 'expanded prompt', {
      name: 'Prompt',
      ext: 'md',
      language: 'markdown',
    }, { read: out.result ? { ...out.result, images: out.images } : undefined });
    void show(`readerd: ${summary}.`, 'Copy as Prompt Context').then((choice) => {
      if (choice) {
        void vscode.commands.executeCommand('readerd.copyAsPromptContext');
      }
    });
  }
  return { ...out, summary, shown };
}
