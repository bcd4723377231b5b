// The readerd extension: manages the daemon, contributes the read command, @-mentions (completion,
// highlights and hovers in prompt documents, the expand commands, the exported expansion), the
// `@readerd` chat participant, the `readerd_read_files` language-model tool, `readerd mcp` as an
// MCP server, and links in the results.

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExpandMentionsOptions, ReadFilesOptions, ReaderdApi } from './api';
import { filesExclude, onDidChangeSettings } from './config';
import { Exclusion } from './exclusion';
import { PathSpec, XmlReadParams } from './protocol';
import { WorkspaceRoots } from './roots';
import { errorText } from './say';
import { registerChatParticipant } from './chat/chatParticipant';
import { ReadFilesTool, TOOL_NAME } from './chat/lmTool';
import { registerMcpServer } from './chat/mcpServer';
import { ContextEntry, PROMPT_CONTEXT_VIEW, PromptContext } from './commands/promptContext';
import { readFilesCommand, filesInFolder, ReadCommandDeps, readRestCommand, retryLastRead } from './commands/readCommand';
import { needsConfirmation } from './commands/readPlan';
import { askAboutImagesCommand, ReadImagesTool, VISION_TOOL_NAME } from './commands/visionCommand';
import { locateReaderd, openPathSettings } from './daemon/firstRun';
import { DaemonLifecycle } from './daemon/lifecycle';
import { Reads } from './daemon/reads';
import { DaemonStatus } from './daemon/status';
import { setVisionKeyCommand, VisionKey } from './daemon/visionKey';
import { expandPromptCommand } from './mentions/expandCommand';
import { MentionCompletionProvider, mentionSelector } from './mentions/mentionCompletion';
import { MentionDecorations } from './mentions/mentionDecorations';
import { MentionIndex } from './mentions/mentionIndex';
import { expandMentions, ExpandedMessage, locatedFolders, parseMentions } from './mentions/mentions';
import { copyConfirmation, promptCopy } from './results/promptCopy';
import { ResultLinks } from './results/resultLinks';
import { ResultStore } from './results/results';
import { registerResultsCommands } from './results/resultsCommands';

function currentRoots(): WorkspaceRoots {
  return new WorkspaceRoots((vscode.workspace.workspaceFolders ?? []).map((f) => ({ name: f.name, path: f.uri.fsPath })));
}

/** The daemon of the window, stopped on deactivation. */
let lifecycle: DaemonLifecycle | undefined;

export function activate(context: vscode.ExtensionContext): ReaderdApi {
  const log = vscode.window.createOutputChannel('readerd', { log: true });
  // The workspace folders, each a root from the next request on.
  let roots = currentRoots();
  const vision = new VisionKey(context.secrets, log);
  const daemon = new DaemonLifecycle({ context, log, vision, roots: () => roots, show: (info) => status.show(info) });
  const status = new DaemonStatus(daemon.info());
  lifecycle = daemon;
  const reads = new Reads(daemon, () => roots);
  const exclusion = new Exclusion({
    roots: () => roots,
    patterns: () => daemon.settings.exclude,
    confined: () => daemon.settings.confineToWorkspace,
    filesExclude: (folder) => filesExclude(vscode.Uri.file(folder)),
    readText: async (file) => {
      try {
        return Buffer.from(await vscode.workspace.fs.readFile(vscode.Uri.file(file))).toString('utf8');
      } catch {
        return undefined;
      }
    },
  });
  const results = new ResultStore();
  const promptContext = new PromptContext(context.workspaceState);
  const contextView = vscode.window.createTreeView(PROMPT_CONTEXT_VIEW, { treeDataProvider: promptContext });
  const describe = (): void => {
    const n = promptContext.list().length;
    contextView.description = n ? `${n} file${n === 1 ? '' : 's'}, about ${promptContext.tokens().toLocaleString('en-US')} tokens` : undefined;
  };
  describe();
  context.subscriptions.push(log, daemon, status, results, promptContext, contextView, promptContext.onDidChangeTreeData(describe));
  registerResultsCommands({
    context,
    results,
    readMore: (item) => reads.read<XmlReadParams>({ paths: [item], ...reads.defaults() }),
    locate: (written) => vscode.Uri.file(roots.locate(written).absolute),
    confirmAboveTokens: () => daemon.settings.confirmAboveTokens,
    defaultFolder: () => vscode.workspace.workspaceFolders?.[0]?.uri,
    log: (line) => log.info(line),
  });

  const readFiles = (async (paths: PathSpec[], options: ReadFilesOptions = {}) => {
    const { token, timeoutMs, ...params } = options;
    return reads.read({ ...params, paths }, { token, timeoutMs });
  }) as ReaderdApi['readFiles'];

  const stat = async (abs: string): Promise<vscode.FileStat | undefined> => {
    try {
      return await vscode.workspace.fs.stat(vscode.Uri.file(abs));
    } catch {
      return undefined;
    }
  };
  const expand = async (
    text: string,
    options: ExpandMentionsOptions & { extraPaths?: string[]; render?: boolean } = {},
  ): Promise<ExpandedMessage> => {
    if (!options.root && roots.folders.length === 0) {
      throw new Error('readerd: @-mentions need a workspace folder (or options.root)');
    }
    // Without options.root, a mention is located among the workspace folders as readFiles does.
    const absolute = (rel: string): string => (options.root ? path.resolve(options.root, rel) : roots.locate(rel).absolute);
    return expandMentions(text, {
      root: options.root,
      read: (params) => reads.read(params, { token: options.token }),
      extraPaths: options.extraPaths,
      render: options.render,
      images: { maxDimension: daemon.settings.maxImageDimension },
      ...locatedFolders(
        absolute,
        async (dir) => (await filesInFolder(vscode.Uri.file(dir))).map((u) => u.fsPath),
        async (abs) => (((await stat(abs))?.type ?? 0) & vscode.FileType.Directory) !== 0,
        async (abs) => (await stat(abs)) !== undefined,
      ),
    });
  };
  const folderFiles = async (rel: string): Promise<string[]> =>
    (await filesInFolder(vscode.Uri.file(roots.locate(rel).absolute))).map((u) => roots.display(u.fsPath));

  // @-mentions where prompts are written: completion, highlights, hovers.
  const index = new MentionIndex(() => roots, exclusion);
  const selector = (): vscode.DocumentFilter[] => mentionSelector(daemon.settings.mentionLanguages, daemon.settings.mentionFiles);
  const completion = new MentionCompletionProvider(index, () => (roots.isMultiRoot ? roots.folders.map((f) => f.name) : []));
  const decorations = new MentionDecorations({
    selector,
    roots: () => roots,
    read: (params, token) => reads.read<XmlReadParams>(params, { token }),
    folderFiles,
  });
  let mentionProviders: vscode.Disposable | undefined;
  const registerMentionProviders = (): void => {
    mentionProviders?.dispose();
    mentionProviders = vscode.Disposable.from(
      vscode.languages.registerCompletionItemProvider(selector(), completion, '@', '/', '"'),
      vscode.languages.registerHoverProvider(selector(), decorations),
    );
    // The editor's context menu offers the expand commands in these languages.
    const languages = ['markdown', 'plaintext', 'prompt', 'instructions', 'chatmode', ...daemon.settings.mentionLanguages];
    void vscode.commands.executeCommand('setContext', 'readerd.mentionLanguageIds', languages);
  };
  registerMentionProviders();
  context.subscriptions.push(index, decorations, { dispose: () => mentionProviders?.dispose() });

  // readerd mcp for VS Code's MCP clients.
  const mcp = registerMcpServer({
    // Only a binary that is there: one readerd.path names before it is installed is not given.
    binary: () => {
      const found = daemon.findBinary()?.path;
      try {
        return found && fs.statSync(found).isFile() ? (fs.accessSync(found, fs.constants.X_OK), found) : undefined;
      } catch {
        return undefined;
      }
    },
    folders: () => roots.folders.map((f) => f.path),
    exclude: () => daemon.settings.exclude,
    version: () => String(context.extension.packageJSON.version ?? ''),
    log: (line) => log.info(line),
  });
  if (mcp) {
    context.subscriptions.push(
      mcp,
      daemon.onDidChangeState(() => mcp.check()),
      vscode.commands.registerCommand('readerd.mcpState', () => mcp.state()),
    );
  }

  const chat = registerChatParticipant({
    expand: (text, options) => expand(text, options),
    display: (fsPath) => roots.display(fsPath),
    locate: (written) => vscode.Uri.file(roots.locate(written).absolute),
    log: (line) => log.info(line),
  });
  if (chat) {
    context.subscriptions.push(chat);
  }
  const expandDeps = {
    expand: (text: string, token: vscode.CancellationToken) => expand(text, { token }),
    results,
    log: (line: string) => log.info(line),
  };

  const readDeps: ReadCommandDeps = {
    display: (fsPath) => roots.display(fsPath),
    read: (params, token) => reads.read<XmlReadParams>({ ...params, ...reads.defaults() }, { token }),
    exclusion,
    folderMaxFiles: () => daemon.settings.folderMaxFiles,
    locate: (displayed) => vscode.Uri.file(roots.locate(displayed).absolute),
    confirmAboveTokens: () => daemon.settings.confirmAboveTokens,
    results,
    log: (line) => log.info(line),
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('readerd.readFiles', (clicked?: unknown, selected?: unknown) => readFilesCommand(readDeps, clicked, selected)),
    vscode.commands.registerCommand('readerd.retryRead', () => retryLastRead()),
    vscode.commands.registerCommand('readerd.readRest', (rest: { path: string; skip: number; total: number }) => readRestCommand(readDeps, rest)),
    // The read command, then the files it read added to the prompt context's list (the clipboard untouched).
    vscode.commands.registerCommand('readerd.addToPromptContext', async (clicked?: unknown, selected?: unknown) => {
      const outcome = await readFilesCommand(readDeps, clicked, selected, { copy: async () => undefined });
      if (!outcome) {
        return undefined;
      }
      const added = await promptContext.add(outcome.result);
      log.info(added.message);
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
    vscode.commands.registerCommand('readerd.copyPromptContext', async () => {
      const entries = promptContext.list();
      if (entries.length === 0) {
        void vscode.window.showInformationMessage('readerd: the prompt context is empty: add files with "readerd: Add to Prompt Context" (the Explorer\'s context menu).');
        return undefined;
      }
      let result;
      try {
        result = await reads.read<XmlReadParams>({ paths: entries.map((e) => e.item), ...reads.defaults() });
      } catch (error) {
        void vscode.window.showErrorMessage(errorText(error));
        return undefined;
      }
      const copy = promptCopy(result);
      const limit = daemon.settings.confirmAboveTokens;
      if (needsConfirmation(copy.tokens, limit)) {
        const { message, detail } = copyConfirmation(result, copy.tokens, limit);
        if ((await vscode.window.showWarningMessage(message, { modal: true, detail }, 'Copy')) !== 'Copy') {
          return undefined;
        }
      }
      await vscode.env.clipboard.writeText(copy.text);
      log.info(copy.message);
      void vscode.window.showInformationMessage(copy.message.replace(/^readerd: copied /, 'readerd: copied the prompt context: '));
      return copy.text;
    }),
    vscode.commands.registerCommand('readerd.clearPromptContext', () => promptContext.clear()),
    vscode.commands.registerCommand('readerd.removeFromPromptContext', (entry?: ContextEntry) => promptContext.remove(entry)),
    vscode.commands.registerCommand('readerd.promptContextList', () => promptContext.list()),
    vscode.commands.registerCommand('readerd.askAboutImages', (clicked?: unknown, selected?: unknown) =>
      askAboutImagesCommand(
        {
          display: (fsPath) => roots.display(fsPath),
          ask: (params, token) => reads.readImages(params, { token }),
          log: (line) => log.info(line),
        },
        clicked,
        selected,
      ),
    ),
    vscode.commands.registerCommand('readerd.setVisionApiKey', (key?: unknown) => setVisionKeyCommand(context.secrets, () => daemon.visionChanged(), key)),
    vision.onDidChange(() => {
      log.info('the vision API key changed');
      void daemon.visionChanged();
    }),
    vscode.commands.registerCommand('readerd.copyExpandedPrompt', () => expandPromptCommand(expandDeps, 'copy')),
    vscode.commands.registerCommand('readerd.openExpandedPrompt', () => expandPromptCommand(expandDeps, 'open')),
    vscode.languages.registerDocumentLinkProvider(ResultLinks.selector, new ResultLinks(() => roots)),
    vscode.commands.registerCommand('readerd.showImages', () => results.showImages()),
    vscode.commands.registerCommand('readerd.restart', () => daemon.restart()),
    vscode.commands.registerCommand('readerd.showLog', () => log.show()),
    vscode.commands.registerCommand('readerd.locate', () => locateReaderd(log)),
    vscode.commands.registerCommand('readerd.openPathSettings', () => openPathSettings()),
    onDidChangeSettings((changed) => {
      daemon.settingsChanged(changed);
      if (changed.includes('mentionLanguages') || changed.includes('mentionFiles')) {
        registerMentionProviders();
        decorations.schedule();
      }
      if (changed.some((c) => c === 'path' || c === 'exclude')) {
        mcp?.refresh();
      }
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      roots = currentRoots();
      log.info(`workspace folders: ${roots.folders.map((f) => f.path).join(', ') || 'none'}`);
      mcp?.refresh();
      decorations.schedule();
    }),
  );

  if (typeof vscode.lm?.registerTool === 'function') {
    context.subscriptions.push(
      vscode.lm.registerTool(
        TOOL_NAME,
        new ReadFilesTool((paths, options) =>
          reads.read<XmlReadParams>(
            { paths, offset: options.offset, limit: options.limit, ...reads.defaults() },
            { token: options.token },
          ),
        ),
      ),
    );
    context.subscriptions.push(vscode.lm.registerTool(VISION_TOOL_NAME, new ReadImagesTool((params, token) => reads.readImages(params, { token }))));
  } else {
    log.warn('this VS Code has no language-model tool API; readerd_read_files is not registered');
  }

  // The daemon starts on first use: the first command, tool call or API call that reads.
  log.info(`readerd extension activated (workspace folders ${roots.folders.map((f) => f.path).join(', ') || 'none'}, extension at ${path.basename(context.extensionPath)})`);

  return {
    apiVersion: 1,
    readFiles,
    expandMentions: expand,
    parseMentions,
    daemon: () => daemon.info(),
    onDidChangeDaemonState: daemon.onDidChangeState,
  };
}

export async function deactivate(): Promise<void> {
  const daemon = lifecycle;
  lifecycle = undefined;
  await daemon?.stop();
}
