// The daemon's lifecycle in the editor: found and started on first use (the binary the settings
// and the workspace give, or the socket), restarted when a setting it depends on changes, stopped
// on deactivation; each failure to start shown once, with what can be done about it.

import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { whyNotExecutable } from './binaryCheck';
import { ReaderdError } from './client';
import { findReaderd } from './findBinary';
import { notFoundMessage, showStartProblem } from './firstRun';
import { DaemonInfo, DaemonManager } from './manager';
import { VisionKey } from './visionKey';
import { DAEMON_SETTINGS, readSettings, Settings } from '../config';
import { VisionSettings } from '../protocol';
import { WorkspaceRoots } from '../roots';
import { branded } from '../say';

export interface LifecycleDeps {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  vision: VisionKey;
  /** The workspace folders now: the first is the daemon's root, all are searched for a built binary. */
  roots(): WorkspaceRoots;
  /** Shows the daemon's state (the status bar). */
  show(info: DaemonInfo): void;
}

export class DaemonLifecycle implements vscode.Disposable {
  private manager: DaemonManager | undefined;
  private managerSub: { dispose(): unknown } | undefined;
  /** The binary the manager runs (undefined in socket mode). */
  private managerBinary: string | undefined;
  private starting: Promise<DaemonManager | undefined> | undefined;
  private restarting: Promise<void> | undefined;
  private readonly stateEmitter = new vscode.EventEmitter<DaemonInfo>();
  private notFound: string | undefined;
  private notFoundShown = false;
  /** The failure last shown in a notification: each one is shown once. */
  private failureShown: string | undefined;
  private current: Settings = readSettings();

  constructor(private readonly deps: LifecycleDeps) {}

  get onDidChangeState(): vscode.Event<DaemonInfo> {
    return this.stateEmitter.event;
  }

  /** The settings as last read (at each start and each change). */
  get settings(): Settings {
    return this.current;
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

  /** The vision endpoint of the settings and the key, as the connection has it. */
  vision(): VisionSettings | undefined {
    return this.deps.vision.endpoint(this.current);
  }

  /** Follows the settings: a change of one the daemon depends on restarts it, if it runs. */
  settingsChanged(changed: Array<keyof Settings>): void {
    this.current = readSettings();
    if (changed.some((key) => key.startsWith('vision.'))) {
      this.manager?.setVision(this.vision());
    }
    this.notFoundShown = false;
    if (changed.some((key) => DAEMON_SETTINGS.includes(key)) && (this.manager || this.starting)) {
      this.deps.log.info('settings changed: restarting readerd');
      void this.restart();
    } else if (this.notFound && changed.includes('path')) {
      this.notFound = undefined;
      this.deps.show(this.info());
    }
  }

  /** Reads the key again (it changed in SecretStorage) and hands the endpoint to the connection. */
  async visionChanged(): Promise<void> {
    await this.deps.vision.reload();
    this.manager?.setVision(this.vision());
  }

  /** The running daemon, started on first use; throws a ReaderdError ('start') when it cannot be. */
  async running(): Promise<DaemonManager> {
    const manager = await this.ensureStarted();
    if (!manager) {
      throw new ReaderdError('start', this.notFound ?? 'readerd is not running');
    }
    return manager;
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
      this.current = readSettings();
      const binary = this.current.socket.trim() ? undefined : this.findBinary()?.path;
      if (binary !== this.managerBinary) {
        this.deps.log.info(`readerd.path now gives ${binary ?? 'nothing'}: starting again`);
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

  /** The readerd binary the settings and the workspace give, and how it was found. */
  findBinary(): { path: string; how: string } | undefined {
    const roots = this.deps.roots();
    return findReaderd({
      configured: this.current.path,
      baseDir: roots.first,
      searchFrom: [...roots.folders.map((f) => f.path), this.deps.context.extensionPath],
    }) ?? undefined;
  }

  /** The binary findBinary gives, if a file that may be run is there (readerd.path may name one not yet installed). */
  installedBinary(): string | undefined {
    const found = this.findBinary()?.path;
    try {
      return found && fs.statSync(found).isFile() ? (fs.accessSync(found, fs.constants.X_OK), found) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Builds a DaemonManager from the settings and starts it. */
  private async start(): Promise<DaemonManager | undefined> {
    const log = this.deps.log;
    // Read again: the settings may be visible only now (a remote window loads them late).
    this.current = readSettings();
    const settings = this.current;
    const socket = settings.socket.trim();
    const root = this.deps.roots().first;
    let binary: string | undefined;
    if (!socket) {
      const found = this.findBinary();
      const problem = !found ? notFoundMessage()
        : found.how === 'setting' ? await whyNotExecutable(found.path).then((why) => why && `readerd: "readerd.path" is set to ${found.path}, but ${why}.`)
          : undefined;
      if (problem || !found) {
        this.notFound = problem;
        log.error(problem ?? '');
        this.deps.show(this.info());
        if (!this.notFoundShown) {
          this.notFoundShown = true;
          void showStartProblem(problem ?? '', log);
        }
        return undefined;
      }
      this.notFound = undefined;
      binary = found.path;
      log.info(`using ${binary} (found by ${found.how})`);
    }
    await this.deps.vision.ready();
    const manager = new DaemonManager({
      binary,
      vision: this.vision(),
      socket: socket || undefined,
      rootPath: root,
      confineToRoot: settings.confineToWorkspace,
      exclude: settings.exclude,
      clientInfo: { name: 'vscode-readerd', version: String(this.deps.context.extension.packageJSON.version ?? '') },
      requestTimeoutMs: settings.requestTimeout,
      maxRestartDelayMs: settings.maxRestartDelay,
      log: (line, level) => (level === 'error' ? log.error(line) : log.info(line)),
    });
    this.manager = manager;
    this.managerBinary = binary;
    this.managerSub = manager.onDidChangeState((info) => {
      this.deps.show(info);
      this.stateEmitter.fire(info);
      if (info.state === 'failed' && info.lastError && info.lastError !== this.failureShown) {
        // Once per failure: the reason, and what can be done about it.
        this.failureShown = info.lastError;
        void showStartProblem(branded(info.lastError), log);
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
    this.deps.show(this.info());
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

  dispose(): void {
    this.stateEmitter.dispose();
  }
}
