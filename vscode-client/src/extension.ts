// The readerd extension: manages the daemon, contributes the read command, @-mentions (completion,
// highlights and hovers in prompt documents, the expand commands, the exported expansion), the
// `@readerd` chat participant, the `readerd_read_files` language-model tool, `readerd mcp` as an
// MCP server, and links in the results.

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExpandMentionsOptions, ReadFilesOptions, ReaderdApi } from './api';
import { ReaderdError } from './daemon/client';
import { DaemonInfo, DaemonManager } from './daemon/manager';
import { findReaderd } from './daemon/findBinary';
import { whyNotExecutable } from './daemon/binaryCheck';
import { locateReaderd, notFoundMessage, openPathSettings, showStartProblem } from './daemon/firstRun';
import { registerChatParticipant } from './chat/chatParticipant';
import { expandPromptCommand } from './mentions/expandCommand';
import { ReadFilesTool, TOOL_NAME } from './chat/lmTool';
import { registerMcpServer } from './chat/mcpServer';
import { MentionCompletionProvider, mentionSelector } from './mentions/mentionCompletion';
import { MentionDecorations } from './mentions/mentionDecorations';
import { MentionIndex } from './mentions/mentionIndex';
import { expandMentions, ExpandedMessage, locatedFolders, parseMentions } from './mentions/mentions';
import { ResultLinks } from './results/resultLinks';
import { DAEMON_SETTINGS, filesExclude, onDidChangeSettings, readSettings, Settings } from './config';
import { PathSpec, ReadAnswer, ReadImagesParams, ReadImagesResult, ReadParams, VisionSettings, XmlReadParams } from './protocol';
import { filesExcludeMatcher } from './filesExclude';
import { readFilesCommand, filesInFolder, ReadCommandDeps, readRestCommand, retryLastRead } from './commands/readCommand';
import { ContextEntry, PROMPT_CONTEXT_VIEW, PromptContext } from './commands/promptContext';
import { copyConfirmation, promptCopy } from './results/promptCopy';
import { needsConfirmation } from './commands/readPlan';
import { errorText } from './say';
import { IgnoreRules } from './ignore';
import { ResultStore } from './results/results';
import { registerResultsCommands } from './results/resultsCommands';
import { locateInOneRoot, readInRoots } from './daemon/rootedRead';
import { askAboutImagesCommand, ReadImagesTool, setVisionKeyCommand, VISION_SECRET, VISION_TOOL_NAME } from './commands/visionCommand';
import { WorkspaceRoots } from './roots';
import { branded } from './say';

const STATE_ICONS: Record<DaemonInfo['state'], string> = {
  stopped: '$(circle-slash)',
  starting: '$(sync~spin)',
  running: '$(files)',
  restarting: '$(sync~spin)',
  failed: '$(error)',
};

/** Least wait for readImages: the daemon waits up to 120 s for the endpoint, and retries a 429 once. */
const VISION_TIMEOUT_MS = 180_000;

class Controller implements vscode.Disposable {
  private manager: DaemonManager | undefined;
  private managerSub: { dispose(): unknown } | undefined;
  /** The binary the manager runs (undefined in socket mode). */
  private managerBinary: string | undefined;
  private starting: Promise<DaemonManager | undefined> | undefined;
  private restarting: Promise<void> | undefined;
  private readonly stateEmitter = new vscode.EventEmitter<DaemonInfo>();
  private readonly status: vscode.StatusBarItem;
  private notFound: string | undefined;
  private notFoundShown = false;
  /** The failure last shown in a notification: each one is shown once. */
  private failureShown: string | undefined;
  private settings: Settings = readSettings();
  private visionKey: string | undefined;
  private visionKeyLoaded: Promise<void> | undefined;
  roots: WorkspaceRoots = currentRoots();

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
  ) {
    this.status = vscode.window.createStatusBarItem('readerd.status', vscode.StatusBarAlignment.Right, 100);
    this.status.name = 'readerd';
    this.status.command = 'readerd.showLog';
    this.updateStatus(this.info());
    this.status.show();
  }

  get onDidChangeState(): vscode.Event<DaemonInfo> {
    return this.stateEmitter.event;
  }

  /** The first workspace folder: the base of paths that name no folder. */
  root(): string | undefined {
    return this.roots.first;
  }

  info(): DaemonInfo {
    return this.manager?.info() ?? {
      state: this.notFound ? 'failed' : 'stopped',
      pid: undefined,
      restarts: 0,
      lastRestartDelayMs: undefined,
      serverInfo: undefined,
      target: 'none',
      lastError: this.notFound,
    };
  }

  /** Follows the settings: a change of one the daemon depends on restarts it, if it runs. */
  settingsChanged(changed: Array<keyof Settings>): void {
    this.settings = readSettings();
    if (changed.some((key) => key.startsWith('vision.'))) {
      this.manager?.setVision(this.vision());
    }
    this.notFoundShown = false;
    if (changed.some((key) => DAEMON_SETTINGS.includes(key)) && (this.manager || this.starting)) {
      this.log.info('settings changed: restarting readerd');
      void this.restart();
    } else if (this.notFound && changed.includes('path')) {
      this.notFound = undefined;
      this.updateStatus(this.info());
    }
  }

  /** The connection's vision endpoint: the settings, and the key from SecretStorage. */
  private vision(): VisionSettings | undefined {
    const s = this.settings;
    const out: VisionSettings = {};
    if (s['vision.baseUrl'].trim()) {
      out.baseUrl = s['vision.baseUrl'].trim();
    }
    if (s['vision.model'].trim()) {
      out.model = s['vision.model'].trim();
    }
    if (s['vision.provider']) {
      out.provider = s['vision.provider'];
    }
    if (this.visionKey) {
      out.apiKey = this.visionKey;
    }
    return Object.keys(out).length ? out : undefined;
  }

  /** Reads the key again (it changed in SecretStorage) and hands the endpoint to the connection. */
  async visionChanged(): Promise<void> {
    this.visionKeyLoaded = this.loadVisionKey();
    await this.visionKeyLoaded;
    this.manager?.setVision(this.vision());
  }

  private async loadVisionKey(): Promise<void> {
    try {
      this.visionKey = (await this.context.secrets.get(VISION_SECRET)) || undefined;
    } catch (error) {
      this.visionKey = undefined;
      this.log.warn(`the vision API key could not be read from the secret storage: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Asks the vision model about pictures (`readImages`), in the one workspace folder the paths lie in. */
  async readImages(params: Omit<ReadImagesParams, 'cwd'>, options: { token?: vscode.CancellationToken } = {}): Promise<ReadImagesResult> {
    const manager = await this.ensureStarted();
    if (!manager) {
      throw new ReaderdError('start', this.notFound ?? 'readerd is not running');
    }
    const where = locateInOneRoot(params.paths, this.roots);
    const vision = this.vision();
    // The endpoint also goes per call, as readImages takes it; the key only through initialize.
    const call: ReadImagesParams = { ...params, paths: where.paths, cwd: where.base, baseUrl: vision?.baseUrl, model: vision?.model, provider: vision?.provider };
    return manager.readImages(call, { token: options.token, root: where.root ?? null, timeoutMs: this.settings.requestTimeout === 0 ? 0 : Math.max(this.settings.requestTimeout, VISION_TIMEOUT_MS) });
  }

  /** Follows the workspace folders: each is a root from the next request on. */
  foldersChanged(): void {
    this.roots = currentRoots();
    this.log.info(`workspace folders: ${this.roots.folders.map((f) => f.path).join(', ') || 'none'}`);
  }

  /** The daemon, started on first use. Undefined when readerd cannot be found. */
  private ensureStarted(): Promise<DaemonManager | undefined> {
    if (this.restarting) {
      // A read during a restart (a setting changed) goes to the new daemon.
      return this.restarting.then(() => this.ensureStarted());
    }
    return this.startOnce();
  }

  /** ensureStarted without waiting for a restart (which itself starts through this). */
  private startOnce(): Promise<DaemonManager | undefined> {
    if (this.manager?.state === 'failed' && !this.starting) {
      // The settings may have arrived or changed without an event reaching us yet (seen right
      // after activation in a remote window): a binary other than the failed one is tried now.
      this.settings = readSettings();
      const binary = this.settings.socket.trim() ? undefined : this.findBinary()?.path;
      if (binary !== this.managerBinary) {
        this.log.info(`readerd.path now gives ${binary ?? 'nothing'}: starting again`);
        // Not through `starting`: stop() waits for that.
        return this.restart().then(() => this.manager);
      }
    }
    if (this.manager) {
      return Promise.resolve(this.manager);
    }
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  get currentSettings(): Settings {
    return this.settings;
  }

  /** The readerd binary the settings and the workspace give, and how it was found. */
  findBinary(): { path: string; how: string } | undefined {
    return findReaderd({
      configured: this.settings.path,
      baseDir: this.root(),
      searchFrom: [...this.roots.folders.map((f) => f.path), this.context.extensionPath],
    }) ?? undefined;
  }

  /** Builds a DaemonManager from the settings and starts it. */
  async start(): Promise<DaemonManager | undefined> {
    // Read again: the settings may be visible only now (a remote window loads them late).
    this.settings = readSettings();
    const settings = this.settings;
    const socket = settings.socket.trim();
    const root = this.root();
    let binary: string | undefined;
    if (!socket) {
      const found = this.findBinary();
      const problem = !found ? notFoundMessage()
        : found.how === 'setting' ? await whyNotExecutable(found.path).then((why) => why && `readerd: "readerd.path" is set to ${found.path}, but ${why}.`)
          : undefined;
      if (problem || !found) {
        this.notFound = problem;
        this.log.error(problem ?? '');
        this.updateStatus(this.info());
        if (!this.notFoundShown) {
          this.notFoundShown = true;
          void showStartProblem(problem ?? '', this.log);
        }
        return undefined;
      }
      this.notFound = undefined;
      binary = found.path;
      this.log.info(`using ${binary} (found by ${found.how})`);
    }
    this.visionKeyLoaded ??= this.loadVisionKey();
    await this.visionKeyLoaded;
    const manager = new DaemonManager({
      binary,
      vision: this.vision(),
      socket: socket || undefined,
      rootPath: root,
      confineToRoot: settings.confineToWorkspace,
      exclude: settings.exclude,
      clientInfo: { name: 'vscode-readerd', version: String(this.context.extension.packageJSON.version ?? '') },
      requestTimeoutMs: settings.requestTimeout,
      maxRestartDelayMs: settings.maxRestartDelay,
      log: (line, level) => (level === 'error' ? this.log.error(line) : this.log.info(line)),
    });
    this.manager = manager;
    this.managerBinary = binary;
    this.managerSub = manager.onDidChangeState((info) => {
      this.updateStatus(info);
      this.stateEmitter.fire(info);
      if (info.state === 'failed' && info.lastError && info.lastError !== this.failureShown) {
        // Once per failure: the reason, and what can be done about it.
        this.failureShown = info.lastError;
        void showStartProblem(branded(info.lastError), this.log);
      } else if (info.state === 'running') {
        this.failureShown = undefined;
      }
    });
    await manager.start().catch(() => undefined);
    return manager;
  }

  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    const manager = this.manager;
    this.manager = undefined;
    this.managerSub?.dispose();
    this.managerSub = undefined;
    this.managerBinary = undefined;
    if (manager) {
      await manager.stop();
      manager.dispose();
    }
    this.updateStatus(this.info());
    this.stateEmitter.fire(this.info());
  }

  /** Stops and starts again; calls made meanwhile (a settings change and a read) share one restart. */
  restart(): Promise<void> {
    this.restarting ??= (async () => {
      await this.stop();
      await this.startOnce();
    })().finally(() => (this.restarting = undefined));
    return this.restarting;
  }

  private updateStatus(info: DaemonInfo): void {
    this.status.text = `${STATE_ICONS[info.state]} readerd`;
    const lines = [
      `readerd: ${info.state}`,
      info.serverInfo ? `version ${info.serverInfo.version}` : undefined,
      info.pid !== undefined ? `pid ${info.pid}` : undefined,
      info.target !== 'none' ? info.target : undefined,
      info.restarts ? `restarted ${info.restarts} time${info.restarts === 1 ? '' : 's'}` : undefined,
      info.lastError ? `last error: ${info.lastError}` : undefined,
      'Click to show the log',
    ];
    this.status.tooltip = lines.filter((l) => l !== undefined).join('\n');
    this.status.backgroundColor = info.state === 'failed'
      ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : undefined;
  }

  /**
   * Reads, starting the daemon on first use. Each path is fenced to the workspace folder it
   * belongs to (see WorkspaceRoots.locate).
   */
  async read<P extends ReadParams>(params: P, options: { token?: vscode.CancellationToken; timeoutMs?: number } = {}): Promise<ReadAnswer<P>> {
    const manager = await this.ensureStarted();
    if (!manager) {
      throw new ReaderdError('start', this.notFound ?? 'readerd is not running');
    }
    const result = await readInRoots(params, this.roots, (sub, root) => manager.read(sub, { ...options, root: root ?? null }));
    return result as ReadAnswer<P>;
  }

  /** The `read` params the settings give the read command and the tool. */
  readDefaults(): Pick<ReadParams, 'lineNumbers' | 'images'> {
    return {
      lineNumbers: this.settings.lineNumbers,
      images: { maxDimension: this.settings.maxImageDimension },
    };
  }

  dispose(): void {
    this.status.dispose();
    this.stateEmitter.dispose();
  }
}

function currentRoots(): WorkspaceRoots {
  return new WorkspaceRoots((vscode.workspace.workspaceFolders ?? []).map((f) => ({ name: f.name, path: f.uri.fsPath })));
}

let controller: Controller | undefined;

export function activate(context: vscode.ExtensionContext): ReaderdApi {
  const log = vscode.window.createOutputChannel('readerd', { log: true });
  const ctl = new Controller(context, log);
  controller = ctl;
  const results = new ResultStore();
  const promptContext = new PromptContext(context.workspaceState);
  const contextView = vscode.window.createTreeView(PROMPT_CONTEXT_VIEW, { treeDataProvider: promptContext });
  const describe = (): void => {
    const n = promptContext.list().length;
    contextView.description = n ? `${n} file${n === 1 ? '' : 's'}, about ${promptContext.tokens().toLocaleString('en-US')} tokens` : undefined;
  };
  describe();
  context.subscriptions.push(log, ctl, results, promptContext, contextView, promptContext.onDidChangeTreeData(describe));
  registerResultsCommands({
    context,
    results,
    readMore: (item) => ctl.read<XmlReadParams>({ paths: [item], ...ctl.readDefaults() }),
    locate: (written) => vscode.Uri.file(ctl.roots.locate(written).absolute),
    confirmAboveTokens: () => ctl.currentSettings.confirmAboveTokens,
    defaultFolder: () => vscode.workspace.workspaceFolders?.[0]?.uri,
    log: (line) => log.info(line),
  });

  const readFiles = (async (paths: PathSpec[], options: ReadFilesOptions = {}) => {
    const { token, timeoutMs, ...params } = options;
    return ctl.read({ ...params, paths }, { token, timeoutMs });
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
    if (!options.root && ctl.roots.folders.length === 0) {
      throw new Error('readerd: @-mentions need a workspace folder (or options.root)');
    }
    // Without options.root, a mention is located among the workspace folders as readFiles does.
    const absolute = (rel: string): string => (options.root ? path.resolve(options.root, rel) : ctl.roots.locate(rel).absolute);
    return expandMentions(text, {
      root: options.root,
      read: (params) => ctl.read(params, { token: options.token }),
      extraPaths: options.extraPaths,
      render: options.render,
      images: { maxDimension: ctl.currentSettings.maxImageDimension },
      ...locatedFolders(
        absolute,
        async (dir) => (await filesInFolder(vscode.Uri.file(dir))).map((u) => u.fsPath),
        async (abs) => (((await stat(abs))?.type ?? 0) & vscode.FileType.Directory) !== 0,
        async (abs) => (await stat(abs)) !== undefined,
      ),
    });
  };
  const folderFiles = async (rel: string): Promise<string[]> =>
    (await filesInFolder(vscode.Uri.file(ctl.roots.locate(rel).absolute))).map((u) => ctl.roots.display(u.fsPath));

  // @-mentions where prompts are written: completion, highlights, hovers.
  const index = new MentionIndex(() => ctl.roots, () => ctl.currentSettings.exclude);
  const selector = (): vscode.DocumentFilter[] => mentionSelector(ctl.currentSettings.mentionLanguages, ctl.currentSettings.mentionFiles);
  const completion = new MentionCompletionProvider(index, () => (ctl.roots.isMultiRoot ? ctl.roots.folders.map((f) => f.name) : []));
  const decorations = new MentionDecorations({
    selector,
    roots: () => ctl.roots,
    read: (params, token) => ctl.read<XmlReadParams>(params, { token }),
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
    const languages = ['markdown', 'plaintext', 'prompt', 'instructions', 'chatmode', ...ctl.currentSettings.mentionLanguages];
    void vscode.commands.executeCommand('setContext', 'readerd.mentionLanguageIds', languages);
  };
  registerMentionProviders();
  context.subscriptions.push(index, decorations, { dispose: () => mentionProviders?.dispose() });

  // readerd mcp for VS Code's MCP clients.
  const mcp = registerMcpServer({
    // Only a binary that is there: one readerd.path names before it is installed is not given.
    binary: () => {
      const found = ctl.findBinary()?.path;
      try {
        return found && fs.statSync(found).isFile() ? (fs.accessSync(found, fs.constants.X_OK), found) : undefined;
      } catch {
        return undefined;
      }
    },
    folders: () => ctl.roots.folders.map((f) => f.path),
    exclude: () => ctl.currentSettings.exclude,
    version: () => String(context.extension.packageJSON.version ?? ''),
    log: (line) => log.info(line),
  });
  if (mcp) {
    context.subscriptions.push(
      mcp,
      ctl.onDidChangeState(() => mcp.check()),
      vscode.commands.registerCommand('readerd.mcpState', () => mcp.state()),
    );
  }

  const chat = registerChatParticipant({
    expand: (text, options) => expand(text, options),
    display: (fsPath) => ctl.roots.display(fsPath),
    locate: (written) => vscode.Uri.file(ctl.roots.locate(written).absolute),
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

  let excludeRules: { of: readonly string[]; rules: IgnoreRules } | undefined;
  const readDeps: ReadCommandDeps = {
    display: (fsPath) => ctl.roots.display(fsPath),
    read: (params, token) => ctl.read<XmlReadParams>({ ...params, ...ctl.readDefaults() }, { token }),
    hidden: (displayed) => {
      const where = ctl.roots.locate(displayed);
      const folder = ctl.roots.folderOf(where.absolute);
      if (!folder) {
        return false;
      }
      return filesExcludeMatcher(filesExclude(vscode.Uri.file(folder.path)))(path.relative(folder.path, where.absolute).split(path.sep).join('/'));
    },
    gitignored: async () => {
      const rules = new Map<string, IgnoreRules>();
      for (const folder of ctl.roots.folders) {
        const r = new IgnoreRules();
        try {
          r.addGitignore(Buffer.from(await vscode.workspace.fs.readFile(vscode.Uri.file(path.join(folder.path, '.gitignore')))).toString('utf8'));
        } catch {
          // no .gitignore
        }
        rules.set(folder.path, r);
      }
      return (fsPath) => {
        const folder = ctl.roots.folderOf(fsPath);
        return !!folder && !!rules.get(folder.path)?.ignores(path.relative(folder.path, fsPath).split(path.sep).join('/'));
      };
    },
    fence: (fsPath) => ({ folder: ctl.roots.folderOf(fsPath)?.path, confined: ctl.currentSettings.confineToWorkspace }),
    folderMaxFiles: () => ctl.currentSettings.folderMaxFiles,
    excluded: (fsPath) => {
      // Asked once per file of the quick pick: the patterns are compiled once per settings.
      const patterns = ctl.currentSettings.exclude;
      if (excludeRules?.of !== patterns) {
        excludeRules = { of: patterns, rules: new IgnoreRules().addExcludes(patterns) };
      }
      const folder = ctl.roots.folderOf(fsPath);
      return !!folder && excludeRules.rules.ignores(path.relative(folder.path, fsPath).split(path.sep).join('/'));
    },
    locate: (displayed) => vscode.Uri.file(ctl.roots.locate(displayed).absolute),
    confirmAboveTokens: () => ctl.currentSettings.confirmAboveTokens,
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
        result = await ctl.read<XmlReadParams>({ paths: entries.map((e) => e.item), ...ctl.readDefaults() });
      } catch (error) {
        void vscode.window.showErrorMessage(errorText(error));
        return undefined;
      }
      const copy = promptCopy(result);
      const limit = ctl.currentSettings.confirmAboveTokens;
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
          display: (fsPath) => ctl.roots.display(fsPath),
          ask: (params, token) => ctl.readImages(params, { token }),
          log: (line) => log.info(line),
        },
        clicked,
        selected,
      ),
    ),
    vscode.commands.registerCommand('readerd.setVisionApiKey', (key?: unknown) => setVisionKeyCommand(context.secrets, () => ctl.visionChanged(), key)),
    context.secrets.onDidChange((e) => {
      if (e.key === VISION_SECRET) {
        log.info('the vision API key changed');
        void ctl.visionChanged();
      }
    }),
    vscode.commands.registerCommand('readerd.copyExpandedPrompt', () => expandPromptCommand(expandDeps, 'copy')),
    vscode.commands.registerCommand('readerd.openExpandedPrompt', () => expandPromptCommand(expandDeps, 'open')),
    vscode.languages.registerDocumentLinkProvider(ResultLinks.selector, new ResultLinks(() => ctl.roots)),
    vscode.commands.registerCommand('readerd.showImages', () => results.showImages()),
    vscode.commands.registerCommand('readerd.restart', () => ctl.restart()),
    vscode.commands.registerCommand('readerd.showLog', () => log.show()),
    vscode.commands.registerCommand('readerd.locate', () => locateReaderd(log)),
    vscode.commands.registerCommand('readerd.openPathSettings', () => openPathSettings()),
    onDidChangeSettings((changed) => {
      ctl.settingsChanged(changed);
      if (changed.includes('mentionLanguages') || changed.includes('mentionFiles')) {
        registerMentionProviders();
        decorations.schedule();
      }
      if (changed.some((c) => c === 'path' || c === 'exclude')) {
        mcp?.refresh();
      }
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      ctl.foldersChanged();
      mcp?.refresh();
      decorations.schedule();
    }),
  );

  if (typeof vscode.lm?.registerTool === 'function') {
    context.subscriptions.push(
      vscode.lm.registerTool(
        TOOL_NAME,
        new ReadFilesTool((paths, options) =>
          ctl.read<XmlReadParams>(
            { paths, offset: options.offset, limit: options.limit, ...ctl.readDefaults() },
            { token: options.token },
          ),
        ),
      ),
    );
    context.subscriptions.push(vscode.lm.registerTool(VISION_TOOL_NAME, new ReadImagesTool((params, token) => ctl.readImages(params, { token }))));
  } else {
    log.warn('this VS Code has no language-model tool API; readerd_read_files is not registered');
  }

  // The daemon starts on first use: the first command, tool call or API call that reads.
  log.info(`readerd extension activated (workspace folders ${ctl.roots.folders.map((f) => f.path).join(', ') || 'none'}, extension at ${path.basename(context.extensionPath)})`);

  return {
    apiVersion: 1,
    readFiles,
    expandMentions: expand,
    parseMentions,
    daemon: () => ctl.info(),
    onDidChangeDaemonState: ctl.onDidChangeState,
  };
}

export async function deactivate(): Promise<void> {
  const ctl = controller;
  controller = undefined;
  await ctl?.stop();
}
