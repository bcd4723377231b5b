// Wires the results view and the send commands into the extension: the panel (and its restore
// after a reload), "Copy as Prompt Context", "Add to Chat", "Save Images..." and "Show Raw XML".

import * as vscode from 'vscode';
import { PathItem, ReadResult } from '../protocol';
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
    keep: (viewed) => {
      results.keep(viewed.result, viewed.title);
    },
    readRest: async (cap, viewed) => {
      await vscode.commands.executeCommand('readerd.readRest', { path: cap.path, skip: cap.shown, total: cap.total, cap: viewed.cap });
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
      return current ? {
        title: current.viewed.title,
        files: current.viewed.result.files.map((f) => f.path),
        html: panel.shownHtml(),
        visible: current.panel.visible,
        seq: current.seq,
        paint: current.paint,
        back: current.back,
        caps: current.viewed.caps ?? [],
      } : undefined;
    }),
    // For the tests: the page's long tasks since the result was shown, or a scroll to a file.
    vscode.commands.registerCommand('readerd.resultsViewAsk', (question: { type: 'stats' } | { type: 'scrollTo'; file: number }) => panel.ask(question)),
    vscode.commands.registerCommand('readerd.resultsViewPainted', (seq: number, timeoutMs = 15_000) => new Promise((resolve) => {
      const now = panel.current;
      if (now?.paint && now.seq === seq) {
        resolve(now.paint);
        return;
      }
      const timer = setTimeout(() => {
        sub.dispose();
        resolve(undefined);
      }, timeoutMs);
      const sub = panel.onDidPaint((paint) => {
        if (paint.seq === seq) {
          clearTimeout(timer);
          sub.dispose();
          resolve(paint);
        }
      });
    })),
  );
  return panel;
}
