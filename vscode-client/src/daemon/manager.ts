// Keeps one connection to readerd alive: starts `readerd serve --stdio` (or connects to a socket
// daemon), performs `initialize`, restarts with exponential back-off when the daemon dies, and
// shuts it down on stop. Plain Node: no vscode import.

import { Emitter, Event } from 'vscode-jsonrpc/node';
import { CloseInfo, ReaderdClient, ReaderdError, RequestOptions } from './client';
import { InitializeParams, InitializeResult, ReadAnswer, ReadImagesParams, ReadImagesResult, ReadParams, VisionSettings } from '../protocol';

export type DaemonState = 'stopped' | 'starting' | 'running' | 'restarting' | 'failed';

/** `ReaderdError.data` of a start whose program answered `initialize` as something else than readerd. */
export const NOT_READERD = 'NOT_READERD';

export interface DaemonOptions {
  /** The readerd binary (stdio mode). */
  binary?: string;
  /** Connect to this Unix socket instead of starting a daemon. */
  socket?: string;
  /**
   * Sent as `initialize`'s `rootPath` at each start: the base of relative paths, and the root a
   * `read` without its own `root` is fenced to.
   */
  rootPath?: string;
  /** Sent as `confineToRoot` with each root: files outside it are refused. */
  confineToRoot?: boolean;
  /** Sent as `exclude`: glob patterns of files never to read. */
  exclude?: string[];
  clientInfo?: { name: string; version?: string };
  /**
   * Sent as `initialize`'s `vision`: the connection's vision endpoint for `readImages`, with its
   * key (which readerd takes only there or from its environment, never per call). Change it with
   * setVision.
   */
  vision?: VisionSettings;
  /** Default request timeout in milliseconds, and longest wait for a restart; 0: none. */
  requestTimeoutMs: number;
  /** First wait before a restart. Default 250 ms; doubles on each quick death. */
  minRestartDelayMs?: number;
  /** Longest wait between restarts. */
  maxRestartDelayMs: number;
  /** A daemon that ran this long before dying is restarted after the shortest wait again. */
  stableAfterMs?: number;
  /**
   * Stdio mode: after this many failures in a row, each a start that failed or a daemon that died
   * before `stableAfterMs`, restarts stop and the state is `failed` (default 3). A socket daemon
   * is waited for without end: something else (systemd, a person) starts it.
   */
  maxQuickFailures?: number;
  env?: NodeJS.ProcessEnv;
  /** Client notes and the daemon's stderr at `info`; failures to start or stay up at `error`. */
  log?: (line: string, level?: 'info' | 'error') => void;
}

export interface DaemonReadOptions extends RequestOptions {
  /**
   * The workspace folder the request is fenced to (its `rootPath`, with `confineToRoot` and
   * `exclude` as configured); absent: `rootPath` of the options. `null`: no root.
   */
  root?: string | null;
}

export interface DaemonInfo {
  state: DaemonState;
  pid: number | undefined;
  /** How many times the daemon was started again after it died. */
  restarts: number;
  /** The wait before the last restart, in milliseconds. */
  lastRestartDelayMs: number | undefined;
  serverInfo: InitializeResult['serverInfo'] | undefined;
  /** `stdio BINARY` or `socket PATH`. */
  target: string;
  lastError: string | undefined;
}

/** Manages the daemon's life; `read` waits for a running daemon. */
export class DaemonManager {
  private client: ReaderdClient | undefined;
  private stateValue: DaemonState = 'stopped';
  private launching: Promise<ReaderdClient> | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private attempt = 0;
  /** Failures in a row (stdio mode): a start that failed, or a death before stableAfterMs. */
  private quickFailures = 0;
  private restarts = 0;
  private lastRestartDelayMs: number | undefined;
  private startedAt = 0;
  private serverInfo: InitializeResult['serverInfo'] | undefined;
  private lastError: string | undefined;
  private waiters: Array<{ resolve: (c: ReaderdClient) => void; reject: (e: Error) => void }> = [];
  private readonly stateEmitter = new Emitter<DaemonInfo>();
  private stopping = false;
  /** The root the connection is initialized with (null: none); undefined before `initialize`. */
  private fencedTo: string | null | undefined;
  /** Counts setVision calls: an initialize sent before the last one is out of date. */
  private visionGeneration = 0;
  /** Orders the switches of root and the requests sent after them. */
  private sending: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: DaemonOptions) {
    if (!options.binary && !options.socket) {
      throw new Error('DaemonManager needs a binary or a socket');
    }
  }

  get state(): DaemonState {
    return this.stateValue;
  }

  /** Fires on every change of state. */
  get onDidChangeState(): Event<DaemonInfo> {
    return this.stateEmitter.event;
  }

  info(): DaemonInfo {
    return {
      state: this.stateValue,
      pid: this.client?.isClosed ? undefined : this.client?.pid,
      restarts: this.restarts,
      lastRestartDelayMs: this.lastRestartDelayMs,
      serverInfo: this.serverInfo,
      target: this.options.socket ? `socket ${this.options.socket}` : `stdio ${this.options.binary}`,
      lastError: this.lastError,
    };
  }

  /** Starts the daemon (or connects) if it is not running; resolves once it is initialized. */
  start(): Promise<ReaderdClient> {
    this.stopping = false;
    if (this.stateValue === 'failed') {
      // Asked again (the settings changed, or a person restarts it): a new series of tries.
      this.attempt = 0;
      this.quickFailures = 0;
    }
    if (this.client && !this.client.isClosed) {
      return Promise.resolve(this.client);
    }
    if (this.restartTimer) {
      clearTimeout(this.restartTimer);
      this.restartTimer = undefined;
    }
    return this.launch();
  }

  /**
   * The running client: waits while the daemon starts or restarts (up to `waitMs`), starts it if
   * it is stopped. When it failed (a binary that cannot run, or that kept dying), rejects at once
   * with the reason: only start() or restart() try again.
   */
  async getClient(waitMs = this.options.requestTimeoutMs): Promise<ReaderdClient> {
    if (this.client && !this.client.isClosed) {
      return this.client;
    }
    if (this.stateValue === 'failed') {
      throw new ReaderdError('start', this.lastError ?? 'readerd failed to start');
    }
    if (this.stateValue === 'stopped') {
      return this.start();
    }
    if (this.launching) {
      return this.launching;
    }
    return new Promise<ReaderdClient>((resolve, reject) => {
      const waiter = {
        resolve: (c: ReaderdClient) => {
          clearTimeout(timer);
          resolve(c);
        },
        reject: (e: Error) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      const timer = waitMs > 0 ? setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new ReaderdError('timeout', `readerd did not come back within ${waitMs} ms (${this.lastError ?? this.stateValue})`));
      }, waitMs) : undefined;
      this.waiters.push(waiter);
    });
  }

  /**
   * Sends `read` to the running daemon (starting it, or waiting for it if it is restarting),
   * fenced to `options.root`: when the connection is fenced to another root, `initialize` is
   * sent first with that root, and the read goes out right after it answered, before any other
   * switch (the daemon fences each request with the connection's workspace when it arrives).
   */
  read<P extends ReadParams>(params: P, options: DaemonReadOptions = {}): Promise<ReadAnswer<P>> {
    return this.send<ReadAnswer<P>>('read', params, options);
  }

  /** Sends `readImages`, fenced to `options.root` as `read` is. */
  readImages(params: ReadImagesParams, options: DaemonReadOptions = {}): Promise<ReadImagesResult> {
    return this.send<ReadImagesResult>('readImages', params, options);
  }

  /**
   * Replaces the vision endpoint and key: the next request is preceded by an `initialize` that
   * carries them (the daemon keeps running).
   */
  setVision(vision: VisionSettings | undefined): void {
    this.options.vision = vision;
    this.visionGeneration++;
    this.fencedTo = undefined;
  }

  private async send<R>(method: string, params: object, options: DaemonReadOptions): Promise<R> {
    const { root, ...requestOptions } = options;
    const wanted = root === undefined ? this.options.rootPath ?? null : root;
    const client = await this.getClient();
    let sent!: Promise<R>;
    const step = this.sending.then(async () => {
      if (this.client !== client || this.fencedTo !== wanted) {
        // A setVision while this initialize is under way must send another one.
        const generation = this.visionGeneration;
        await client.initialize(this.initializeParams(wanted), { timeoutMs: 10_000 });
        if (this.client === client && generation === this.visionGeneration) {
          this.fencedTo = wanted;
        }
      }
      sent = client.request<R>(method, params, { timeoutMs: this.options.requestTimeoutMs, ...requestOptions });
    });
    this.sending = step.catch(() => undefined);
    await step;
    return sent;
  }

  private initializeParams(root: string | null): InitializeParams {
    return {
      rootPath: root ?? undefined,
      // Confinement needs a root: without a workspace folder there is nothing to confine to.
      confineToRoot: root ? this.options.confineToRoot : undefined,
      exclude: this.options.exclude?.length ? this.options.exclude : undefined,
      vision: this.options.vision && Object.keys(this.options.vision).length ? this.options.vision : undefined,
      clientInfo: this.options.clientInfo,
    };
  }

  /** Stops and starts again at once (the back-off is reset). */
  async restart(): Promise<ReaderdClient> {
    await this.stop();
    this.attempt = 0;
    this.quickFailures = 0;
    return this.start();
  }

  /** Shuts the daemon down (`shutdown` + `exit`, then signals) and stops restarting it. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) {
      clearTimeout(this.restartTimer);
      this.restartTimer = undefined;
    }
    if (this.launching) {
      await this.launching.catch(() => undefined);
    }
    const client = this.client;
    this.client = undefined;
    if (client && !client.isClosed) {
      await client.shutdown();
    }
    this.rejectWaiters(new ReaderdError('closed', 'readerd was stopped'));
    this.setState('stopped');
  }

  dispose(): void {
    this.stopping = true;
    if (this.restartTimer) {
      clearTimeout(this.restartTimer);
    }
    this.client?.dispose();
    this.stateEmitter.dispose();
  }

  private launch(): Promise<ReaderdClient> {
    if (this.launching) {
      return this.launching;
    }
    this.setState(this.restarts > 0 || this.attempt > 0 ? 'restarting' : 'starting');
    const launching = this.connectAndInitialize().then(
      (client) => {
        this.launching = undefined;
        if (this.stopping) {
          client.dispose();
          throw new ReaderdError('closed', 'readerd was stopped');
        }
        this.client = client;
        this.startedAt = Date.now();
        client.onDidClose((info) => this.onClosed(client, info));
        this.setState('running');
        const waiters = this.waiters;
        this.waiters = [];
        for (const w of waiters) {
          w.resolve(client);
        }
        return client;
      },
      (error: unknown) => {
        this.launching = undefined;
        const message = error instanceof Error ? error.message : String(error);
        this.lastError = message;
        if (this.stopping) {
          this.rejectWaiters(error instanceof Error ? error : new Error(message));
          this.setState('stopped');
          throw error;
        }
        this.log(`start failed: ${message}`, 'error');
        const fatal = error instanceof ReaderdError && error.kind === 'start' && !this.options.socket &&
          (error.data === 'ENOENT' || error.data === 'EACCES' || error.data === NOT_READERD);
        if (fatal) {
          this.fail(message);
        } else {
          this.scheduleRestart();
        }
        throw error;
      },
    );
    this.launching = launching;
    launching.catch(() => undefined);
    return launching;
  }

  private async connectAndInitialize(): Promise<ReaderdClient> {
    const common = {
      timeoutMs: this.options.requestTimeoutMs,
      log: (line: string) => this.log(line),
    };
    const client = this.options.socket
      ? await ReaderdClient.connect(this.options.socket, common)
      : await ReaderdClient.spawn(this.options.binary!, { ...common, env: this.options.env, cwd: this.options.rootPath });
    this.log(`connected to ${client.description}`);
    try {
      const generation = this.visionGeneration;
      const result = await client.initialize(this.initializeParams(this.options.rootPath ?? null), { timeoutMs: 10_000 });
      const name = result?.serverInfo?.name;
      if (name !== 'readerd') {
        throw new ReaderdError('start', `${client.description} is not readerd: it answered initialize ` +
          `${name === undefined ? 'without serverInfo.name' : `as "${String(name).slice(0, 60)}"`}`, undefined, NOT_READERD);
      }
      this.fencedTo = generation === this.visionGeneration ? this.options.rootPath ?? null : undefined;
      this.serverInfo = result.serverInfo;
      this.log(`initialized: ${result.serverInfo.name} ${result.serverInfo.version}, root ${this.options.rootPath ?? '(none)'}`);
      return client;
    } catch (error) {
      if (error instanceof ReaderdError && error.kind === 'closed' && !this.options.socket) {
        // A program that exits at once (/bin/true) is no daemon: say what it did, in words. The
        // connection's end is known by now: that is what rejected the request.
        const info = await client.closed;
        client.dispose();
        throw new ReaderdError('start', `${this.options.binary} ${info.reason} before answering initialize: is it readerd?`, undefined, 'EXITED');
      }
      client.dispose();
      throw error;
    }
  }

  private onClosed(client: ReaderdClient, info: CloseInfo): void {
    if (this.client !== client) {
      return;
    }
    this.client = undefined;
    if (info.expected || this.stopping) {
      this.log(`readerd ${info.reason}`);
      this.setState('stopped');
      return;
    }
    this.lastError = `readerd ${info.reason}`;
    this.log(`readerd ${info.reason} unexpectedly`, 'error');
    if (Date.now() - this.startedAt >= (this.options.stableAfterMs ?? 10_000)) {
      this.attempt = 0;
      this.quickFailures = 0;
    }
    this.scheduleRestart();
  }

  /** Stops retrying: the state is `failed`, every waiting read gets `reason` at once. */
  private fail(reason: string): void {
    this.lastError = reason;
    this.rejectWaiters(new ReaderdError('start', reason));
    this.setState('failed');
  }

  private scheduleRestart(): void {
    const most = this.options.maxQuickFailures ?? 3;
    if (!this.options.socket && ++this.quickFailures >= most) {
      const reason = `stopped restarting after ${this.quickFailures} failures in a row (last: ${this.lastError ?? 'unknown'})`;
      this.log(reason, 'error');
      this.fail(reason);
      return;
    }
    const min = this.options.minRestartDelayMs ?? 250;
    const max = this.options.maxRestartDelayMs;
    const wait = Math.min(max, min * 2 ** this.attempt);
    this.attempt++;
    this.lastRestartDelayMs = wait;
    this.log(`restarting in ${wait} ms (attempt ${this.attempt})`);
    this.setState('restarting');
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopping) {
        return;
      }
      this.restarts++;
      this.launch().catch(() => undefined);
    }, wait);
  }

  private rejectWaiters(error: Error): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) {
      w.reject(error);
    }
  }

  private setState(state: DaemonState): void {
    this.stateValue = state;
    this.stateEmitter.fire(this.info());
  }

  private log(line: string, level: 'info' | 'error' = 'info'): void {
    this.options.log?.(line, level);
  }
}
