// The readerd extension: manages the daemon, contributes the read command, @-mention expansion
// (exported), and the `readerd_read_files` language-model tool.

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExpandMentionsOptions, ReadFilesOptions, ReaderdApi } from './api';
import { ReaderdError } from './client';
import { DaemonInfo, DaemonManager } from './daemon';
import { findReaderd } from './findBinary';
import { ReadFilesTool, TOOL_NAME } from './lmTool';
import { expandMentions, parseMentions } from './mentions';
import { PathSpec, ReadParams, ReadResult } from './protocol';
import { readFilesCommand, filesInFolder, pathForRead } from './readCommand';
import { ResultStore } from './results';

const STATE_ICONS: Record<DaemonInfo['state'], string> = {
  stopped: '$(circle-slash)',
  starting: '$(sync~spin)',
  running: '$(files)',
  restarting: '$(sync~spin)',
  failed: '$(error)',
};

class Controller implements vscode.Disposable {
  private manager: DaemonManager | undefined;
  private managerSub: { dispose(): unknown } | undefined;
  private readonly stateEmitter = new vscode.EventEmitter<DaemonInfo>();
  private readonly status: vscode.StatusBarItem;
  private notFound: string | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
  ) {
    this.status = vscode.window.createStatusBarItem('readerd.status', vscode.StatusBarAlignment.Right, 100);
    this.status.name = 'readerd';
    this.status.command = 'readerd.showLog';
    this.status.show();
  }

  get onDidChangeState(): vscode.Event<DaemonInfo> {
    return this.stateEmitter.event;
  }

  root(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  info(): DaemonInfo {
    return this.manager?.info() ?? {
      state: 'failed',
      pid: undefined,
      restarts: 0,
      lastRestartDelayMs: undefined,
      serverInfo: undefined,
      target: 'none',
      lastError: this.notFound,
    };
  }

  /** Builds a DaemonManager from the settings and starts it. */
  async start(): Promise<void> {
    const config = vscode.workspace.getConfiguration('readerd');
    const socket = config.get<string>('socket', '').trim();
    const root = this.root();
    let binary: string | undefined;
    if (!socket) {
      const found = findReaderd({
        configured: config.get<string>('path', ''),
        baseDir: root,
        searchFrom: [...(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath), this.context.extensionPath],
      });
      if (!found) {
        this.notFound = 'readerd was not found: set "readerd.path", build it in the repository (build/daemon/readerd), or put it on PATH';
        this.log.error(this.notFound);
        this.updateStatus(this.info());
        void vscode.window.showErrorMessage(`readerd: ${this.notFound}`, 'Open Settings').then((choice) => {
          if (choice) {
            void vscode.commands.executeCommand('workbench.action.openSettings', 'readerd.path');
          }
        });
        return;
      }
      this.notFound = undefined;
      binary = found.path;
      this.log.info(`using ${binary} (found by ${found.how})`);
    }
    const manager = new DaemonManager({
      binary,
      socket: socket || undefined,
      rootPath: root,
      confineToRoot: config.get<boolean>('confineToWorkspace', true),
      exclude: config.get<string[]>('exclude', []),
      clientInfo: { name: 'vscode-readerd', version: String(this.context.extension.packageJSON.version ?? '') },
      requestTimeoutMs: config.get<number>('requestTimeout', 60_000),
      maxRestartDelayMs: config.get<number>('maxRestartDelay', 30_000),
      log: (line) => this.log.info(line),
    });
    this.manager = manager;
    this.managerSub = manager.onDidChangeState((info) => {
      this.updateStatus(info);
      this.stateEmitter.fire(info);
    });
    try {
      await manager.start();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (manager.state === 'failed') {
        void vscode.window.showErrorMessage(`readerd: ${message}`);
      }
    }
  }

  async stop(): Promise<void> {
    const manager = this.manager;
    this.manager = undefined;
    this.managerSub?.dispose();
    this.managerSub = undefined;
    if (manager) {
      await manager.stop();
      manager.dispose();
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
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

  async read(params: ReadParams, options: { token?: vscode.CancellationToken; timeoutMs?: number } = {}): Promise<ReadResult> {
    if (!this.manager) {
      throw new ReaderdError('start', this.notFound ?? 'readerd is not running');
    }
    return this.manager.read(params, options);
  }

  readDefaults(): Pick<ReadParams, 'lineNumbers' | 'images'> {
    const config = vscode.workspace.getConfiguration('readerd');
    return {
      lineNumbers: config.get<boolean>('lineNumbers', true),
      images: { maxDimension: config.get<number>('maxImageDimension', 1568) },
    };
  }

  dispose(): void {
    this.status.dispose();
    this.stateEmitter.dispose();
  }
}

let controller: Controller | undefined;

export function activate(context: vscode.ExtensionContext): ReaderdApi {
  const log = vscode.window.createOutputChannel('readerd', { log: true });
  const ctl = new Controller(context, log);
  controller = ctl;
  const results = new ResultStore();
  context.subscriptions.push(log, ctl, results);

  const readFiles = async (paths: PathSpec[], options: ReadFilesOptions = {}): Promise<ReadResult> => {
    const { token, timeoutMs, ...params } = options;
    return ctl.read({ cwd: ctl.root(), ...params, paths }, { token, timeoutMs });
  };

  const expand = async (text: string, options: ExpandMentionsOptions = {}) => {
    const root = options.root ?? ctl.root();
    if (!root) {
      throw new Error('readerd: @-mentions need a workspace folder (or options.root)');
    }
    const rootUri = vscode.Uri.file(root);
    return expandMentions(text, {
      root,
      read: (params) => ctl.read(params, { token: options.token }),
      isFolder: async (rel) => {
        try {
          const st = await vscode.workspace.fs.stat(vscode.Uri.joinPath(rootUri, rel));
          return (st.type & vscode.FileType.Directory) !== 0;
        } catch {
          return false;
        }
      },
      listFolder: async (rel) => {
        const files = await filesInFolder(vscode.Uri.joinPath(rootUri, rel));
        return files.map((u) => pathForRead(root, u.fsPath));
      },
    });
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('readerd.readFiles', (clicked?: unknown, selected?: unknown) =>
      readFilesCommand(
        {
          root: () => ctl.root(),
          read: (paths, token) => ctl.read({ paths, cwd: ctl.root(), ...ctl.readDefaults() }, { token }),
          results,
          log: (line) => log.info(line),
        },
        clicked,
        selected,
      ),
    ),
    vscode.commands.registerCommand('readerd.copyAsPromptContext', () => results.copyCurrent()),
    vscode.commands.registerCommand('readerd.showImages', () => results.showImages()),
    vscode.commands.registerCommand('readerd.restart', () => ctl.restart()),
    vscode.commands.registerCommand('readerd.showLog', () => log.show()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      const restarting = ['readerd.path', 'readerd.socket', 'readerd.requestTimeout', 'readerd.maxRestartDelay', 'readerd.confineToWorkspace', 'readerd.exclude'];
      if (restarting.some((s) => e.affectsConfiguration(s))) {
        log.info('settings changed: restarting readerd');
        void ctl.restart();
      }
    }),
  );

  if (typeof vscode.lm?.registerTool === 'function') {
    context.subscriptions.push(
      vscode.lm.registerTool(
        TOOL_NAME,
        new ReadFilesTool((paths, options) =>
          ctl.read(
            { paths, cwd: ctl.root(), offset: options.offset, limit: options.limit, ...ctl.readDefaults() },
            { token: options.token },
          ),
        ),
      ),
    );
  } else {
    log.warn('this VS Code has no language-model tool API; readerd_read_files is not registered');
  }

  void ctl.start();
  log.info(`readerd extension activated (workspace ${ctl.root() ?? 'none'}, extension at ${path.basename(context.extensionPath)})`);

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
