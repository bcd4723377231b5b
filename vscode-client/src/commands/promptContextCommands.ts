// Wires the prompt context into the extension: its view in the Explorer (with the count of files
// and tokens as the description), "readerd: Add to Prompt Context" (the read command, then its
// files added to the list), "Copy Prompt Context" (the list read afresh in one request), "Clear",
// "Remove" and the list for the tests.

import * as vscode from 'vscode';
import { ReadCommandDeps, readFilesCommand } from './readCommand';
import { ContextEntry, PROMPT_CONTEXT_VIEW, PromptContext } from './promptContext';
import { PathSpec, ReadResult } from '../protocol';
import { copyConfirmation, promptCopy } from '../results/promptCopy';
import { needsConfirmation } from '../format';
import { errorText } from '../say';

export interface PromptContextDeps {
  state: vscode.Memento;
  /** What the read command needs: "Add to Prompt Context" runs it. */
  readDeps: ReadCommandDeps;
  /** Reads the list's items as the read command does. */
  read(items: PathSpec[]): Promise<ReadResult>;
  /** `readerd.confirmAboveTokens`. */
  confirmAboveTokens(): number;
  log(line: string): void;
}

/** Creates the list and its view and registers the commands; returns what to dispose. */
export function registerPromptContext(deps: PromptContextDeps): vscode.Disposable[] {
  const promptContext = new PromptContext(deps.state);
  const contextView = vscode.window.createTreeView(PROMPT_CONTEXT_VIEW, { treeDataProvider: promptContext });
  const describe = (): void => {
    const n = promptContext.list().length;
    contextView.description = n ? `${n} file${n === 1 ? '' : 's'}, about ${promptContext.tokens().toLocaleString('en-US')} tokens` : undefined;
  };
  describe();
  return [
    promptContext,
    contextView,
    promptContext.onDidChangeTreeData(describe),
    // The read command, then the files it read added to the prompt context's list (the clipboard untouched).
    vscode.commands.registerCommand('readerd.addToPromptContext', async (clicked?: unknown, selected?: unknown) => {
      const outcome = await readFilesCommand(deps.readDeps, clicked, selected, { copy: async () => undefined });
      if (!outcome) {
        return undefined;
      }
      const added = await promptContext.add(outcome.result);
      deps.log(added.message);
      const show = added.refused.length ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
      void show(added.message, 'Copy Prompt Context', 'Show the List').then((choice) => {
        if (choice === 'Copy Prompt Context') {
          void vscode.commands.executeCommand('readerd.copyPromptContext');
        } else if (choice === 'Show the List') {
          void vscode.commands.executeCommand(`${PROMPT_CONTEXT_VIEW}.focus`);
        }
      });
      return { ...outcome, added };
    }),
    vscode.commands.registerCommand('readerd.copyPromptContext', () => copyPromptContext(promptContext, deps)),
    vscode.commands.registerCommand('readerd.clearPromptContext', () => promptContext.clear()),
    vscode.commands.registerCommand('readerd.removeFromPromptContext', (entry?: ContextEntry) => promptContext.remove(entry)),
    vscode.commands.registerCommand('readerd.promptContextList', () => promptContext.list()),
  ];
}

/** "Copy Prompt Context": the list read afresh, asked about above the limit, copied; the text copied, or undefined. */
async function copyPromptContext(promptContext: PromptContext, deps: PromptContextDeps): Promise<string | undefined> {
  const entries = promptContext.list();
  if (entries.length === 0) {
    void vscode.window.showInformationMessage('readerd: the prompt context is empty: add files with "readerd: Add to Prompt Context" (the Explorer\'s context menu).');
    return undefined;
  }
  let result;
  try {
    result = await deps.read(entries.map((e) => e.item));
  } catch (error) {
    void vscode.window.showErrorMessage(errorText(error));
    return undefined;
  }
  const copy = promptCopy(result);
  const limit = deps.confirmAboveTokens();
  if (needsConfirmation(copy.tokens, limit)) {
    const { message, detail } = copyConfirmation(result, copy.tokens, limit);
    if ((await vscode.window.showWarningMessage(message, { modal: true, detail }, 'Copy')) !== 'Copy') {
      return undefined;
    }
  }
  await vscode.env.clipboard.writeText(copy.text);
  deps.log(copy.message);
  void vscode.window.showInformationMessage(copy.message.replace(/^readerd: copied /, 'readerd: copied the prompt context: '));
  return copy.text;
}
