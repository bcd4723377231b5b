// The readerd extension's entry: builds its parts and registers what they contribute. The daemon
// (daemon/: its lifecycle, the status bar, the vision key, the reads), what is left out
// (exclusion.ts), @-mentions (mentions/: completion, highlights and hovers in prompt documents,
// the expand commands, the exported expansion), the commands (commands/: read, prompt context,
// ask about images), the results view (results/), and VS Code's chat (chat/: the `@readerd`
// participant, the language-model tools, `readerd mcp` as an MCP server).

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReadFilesOptions, ReaderdApi } from './api';
import { filesExclude, onDidChangeSettings } from './config';
import { Exclusion } from './exclusion';
import { PathSpec, XmlReadParams } from './protocol';
import { WorkspaceRoots } from './roots';
import { registerChatParticipant } from './chat/chatParticipant';
import { ReadFilesTool, TOOL_NAME } from './chat/lmTool';
import { registerMcpServer } from './chat/mcpServer';
import { registerPromptContext } from './commands/promptContextCommands';
import { readFilesCommand, ReadCommandDeps, readRestCommand, retryLastRead } from './commands/readCommand';
import { askAboutImagesCommand, ReadImagesTool, VISION_TOOL_NAME } from './commands/visionCommand';
import { locateReaderd, openPathSettings } from './daemon/firstRun';
import { DaemonLifecycle } from './daemon/lifecycle';
import { Reads } from './daemon/reads';
import { DaemonStatus } from './daemon/status';
import { setVisionKeyCommand, VisionKey } from './daemon/visionKey';
import { expandPromptCommand } from './mentions/expandCommand';
import { ExpandedMessage, parseMentions } from './mentions/mentions';
import { ExpandOptions, WorkspaceMentions } from './mentions/workspaceMentions';
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
  context.subscriptions.push(log, daemon, status, results);
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

  // @-mentions: the expansion, and completion, highlights and hovers where prompts are written.
  const mentions = new WorkspaceMentions({ roots: () => roots, settings: () => daemon.settings, reads, exclusion });
  const expand = (text: string, options?: ExpandOptions): Promise<ExpandedMessage> => mentions.expand(text, options);
  context.subscriptions.push(mentions);

  // readerd mcp for VS Code's MCP clients.
  const mcp = registerMcpServer({
    // Only a binary that is there: one readerd.path names before it is installed is not given.
    binary: () => daemon.installedBinary(),
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
    ...registerPromptContext({
      state: context.workspaceState,
      readDeps,
      read: (items) => reads.read<XmlReadParams>({ paths: items, ...reads.defaults() }),
      confirmAboveTokens: () => daemon.settings.confirmAboveTokens,
      log: (line) => log.info(line),
    }),
    vscode.commands.registerCommand('readerd.readFiles', (clicked?: unknown, selected?: unknown) => readFilesCommand(readDeps, clicked, selected)),
    vscode.commands.registerCommand('readerd.retryRead', () => retryLastRead()),
    vscode.commands.registerCommand('readerd.readRest', (rest: { path: string; skip: number; total: number }) => readRestCommand(readDeps, rest)),
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
      mentions.settingsChanged(changed);
      if (changed.some((c) => c === 'path' || c === 'exclude')) {
        mcp?.refresh();
      }
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      roots = currentRoots();
      log.info(`workspace folders: ${roots.folders.map((f) => f.path).join(', ') || 'none'}`);
      mcp?.refresh();
      mentions.foldersChanged();
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
