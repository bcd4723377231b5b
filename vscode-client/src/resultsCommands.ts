// Wires the results view and the send commands into the extension: the panel (and its restore
// after a reload), "Copy as Prompt Context", "Add to Chat", "Save Images..." and "Show Raw XML".

import * as vscode from 'vscode';
import { PathItem, ReadResult } from './protocol';
import { ResultStore } from './results';
import { ResultsPanel } from './resultsPanel';
import { addToChatCommand, copyAsPromptContext, saveImagesCommand, SendDeps } from './sendCommands';

export interface ResultsCommandsDeps {
  context: vscode.ExtensionContext;
  results: ResultStore;
  readMore(item: PathItem): Promise<ReadResult>;
  locate(path: string): vscode.Uri;
  confirmAboveTokens(): number;
  defaultFolder(): vscode.Uri | undefined;
  log(line: string): void;
}

/** Registers the view and the commands; returns the panel (the tests look at it through the commands). */
export function registerResultsCommands(deps: ResultsCommandsDeps): ResultsPanel {
  const { context, results } = deps;
  const panel = new ResultsPanel({
    state: context.workspaceState,
    readMore: (item) => deps.readMore(item),
    locate: (p) => deps.locate(p),
    showResult: async (result, title) => {
      await results.show(result, title);
    },
    openRaw: async () => {
      await results.openRaw();
    },
    restored: (viewed) => {
      results.keep(viewed.result, viewed.title);
    },
    log: (line) => deps.log(line),
  });
  results.useView(panel);
  const send: SendDeps = {
    results,
    confirmAboveTokens: () => deps.confirmAboveTokens(),
    locate: (p) => deps.locate(p),
    storage: context.globalStorageUri,
    defaultFolder: () => deps.defaultFolder(),
    log: (line) => deps.log(line),
  };
  context.subscriptions.push(
    panel,
    vscode.commands.registerCommand('readerd.copyAsPromptContext', () => copyAsPromptContext(send)),
    vscode.commands.registerCommand('readerd.addToChat', () => addToChatCommand(send)),
    vscode.commands.registerCommand('readerd.saveImages', (folder?: unknown) => saveImagesCommand(send, folder instanceof vscode.Uri ? folder : undefined)),
    vscode.commands.registerCommand('readerd.showRawXml', async () => (await results.openRaw())?.document.uri),
    // For the tests: what the results view shows, and its page.
    vscode.commands.registerCommand('readerd.resultsView', () => {
      const current = panel.current;
      return current ? { title: current.viewed.title, files: current.viewed.result.files.map((f) => f.path), html: current.panel.webview.html, visible: current.panel.visible } : undefined;
    }),
  );
  return panel;
}
