// A JSON-RPC client for one connection to readerd: over the stdio of a `readerd serve --stdio`
// child process, or over the Unix socket of a running `readerd serve --socket PATH` daemon.
// Plain Node: no vscode import.

import { ChildProcess, spawn } from 'node:child_process';
import * as net from 'node:net';
import type { Readable, Writable } from 'node:stream';
import {
  CancellationToken,
  CancellationTokenSource,
  createMessageConnection,
  Disposable,
  Emitter,
  Event,
  MessageConnection,
  ResponseError,
} from 'vscode-jsonrpc/node';
import { LineMessageReader, LineMessageWriter } from './lineTransport';
import { ErrorCode, InitializeParams, InitializeResult, ReadAnswer, ReadParams } from '../protocol';

/** What went wrong with a request. */
export type ReaderdErrorKind = 'rpc' | 'cancelled' | 'timeout' | 'closed' | 'start';

/** An error of the client: `kind` says what happened, `code` is the JSON-RPC code if any. */
export class ReaderdError extends Error {
  constructor(
    readonly kind: ReaderdErrorKind,
    message: string,
    readonly code?: number,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ReaderdError';
  }
}

/** The minimal cancellation token accepted: vscode's and vscode-jsonrpc's both fit. */
export interface TokenLike {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => unknown): { dispose(): unknown };
}

export interface RequestOptions {
  /** Cancels the request: `$/cancelRequest` is sent and the promise rejects with kind `cancelled`. */
  token?: TokenLike;
  /** Milliseconds before the request is cancelled and rejects with kind `timeout`; 0: never. */
  timeoutMs?: number;
}

export interface ClientOptions {
  /** Default timeout of requests in milliseconds; 0 or absent: none. */
  timeoutMs?: number;
  /** How long a cancelled request waits for the daemon's `-32800` before it rejects anyway. */
  cancelGraceMs?: number;
  /** Called with each line the daemon writes on stderr (stdio mode) and with client notes. */
  log?: (line: string) => void;
}

export interface SpawnOptions extends ClientOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Extra arguments after `serve --stdio`. */
  args?: string[];
}

/** How a connection ended. */
export interface CloseInfo {
  /** Exit status of the child process (stdio mode), null when killed by a signal or a socket. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when this side asked for it (shutdown or dispose). */
  expected: boolean;
  /** A short human description: "exited with status 0", "killed by SIGKILL", "socket closed". */
  reason: string;
}

const DEFAULT_CANCEL_GRACE_MS = 2_000;

/** Why a program could not be started, in words rather than `spawn X ENOENT`. */
export function spawnErrorWords(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT':
      return 'there is no such file (or a program it needs is missing)';
    case 'EACCES':
      return 'it is not executable (permission denied)';
    case 'ENOEXEC':
      return 'it is not a program this machine can run';
    case 'EISDIR':
      return 'it is a folder';
    default:
      return error.message;
  }
}

/** One connection to readerd. */
export class ReaderdClient {
  private readonly connection: MessageConnection;
  private readonly closeEmitter = new Emitter<CloseInfo>();
  private closeInfo: CloseInfo | undefined;
  private expectingClose = false;
  private readonly timeoutMs: number;
  private readonly cancelGraceMs: number;
  /** Resolves once the connection has ended. */
  readonly closed: Promise<CloseInfo>;
  private resolveClosed!: (info: CloseInfo) => void;

  private constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly child: ChildProcess | undefined,
    private readonly socket: net.Socket | undefined,
    readonly description: string,
    private readonly options: ClientOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? 0;
    this.cancelGraceMs = options.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS;
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    this.connection = createMessageConnection(new LineMessageReader(input), new LineMessageWriter(output), {
      error: (m: string) => this.note(`jsonrpc: ${m}`),
      warn: (m: string) => this.note(`jsonrpc: ${m}`),
      info: () => undefined,
      log: () => undefined,
    });
    this.connection.onError(([error]) => this.note(`connection error: ${error.message}`));
    this.connection.listen();
    this.watchEnd();
  }

  /** Starts `binary serve --stdio` and connects to it. Rejects (kind `start`) when it cannot run. */
  static async spawn(binary: string, options: SpawnOptions = {}): Promise<ReaderdClient> {
    const child = spawn(binary, ['serve', '--stdio', ...(options.args ?? [])], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error: NodeJS.ErrnoException) => {
        reject(new ReaderdError('start', `cannot start ${binary}: ${spawnErrorWords(error)}`, undefined, error.code));
      });
    });
    if (options.log) {
      const log = options.log;
      let rest = '';
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) {
          if (line.trim() !== '') {
            log(line);
          }
        }
      });
    } else {
      child.stderr?.resume();
    }
    return new ReaderdClient(child.stdout!, child.stdin!, child, undefined, `${binary} (pid ${child.pid})`, options);
  }

  /** Connects to a daemon listening on the Unix socket at `socketPath`. */
  static async connect(socketPath: string, options: ClientOptions = {}): Promise<ReaderdClient> {
    const socket = net.createConnection(socketPath);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', (error: NodeJS.ErrnoException) => {
        reject(new ReaderdError('start', `cannot connect to ${socketPath}: ${error.message}`, undefined, error.code));
      });
    });
    return new ReaderdClient(socket, socket, undefined, socket, `socket ${socketPath}`, options);
  }

  /** The daemon's process id in stdio mode. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get isClosed(): boolean {
    return this.closeInfo !== undefined;
  }

  /** Fires once when the connection ends, whatever the cause. */
  get onDidClose(): Event<CloseInfo> {
    return this.closeEmitter.event;
  }

  initialize(params: InitializeParams, options?: RequestOptions): Promise<InitializeResult> {
    return this.request<InitializeResult>('initialize', params, options);
  }

  read<P extends ReadParams>(params: P, options?: RequestOptions): Promise<ReadAnswer<P>> {
    return this.request<ReadAnswer<P>>('read', params, options);
  }

  /**
   * Sends a request and waits for its answer. Rejects with a ReaderdError: `rpc` for an error
   * answer (with its code), `cancelled` when `options.token` fired, `timeout` when no answer came
   * in time (the request is cancelled on the daemon too), `closed` when the connection ended.
   */
  async request<R>(method: string, params?: object, options: RequestOptions = {}): Promise<R> {
    if (this.closeInfo) {
      throw new ReaderdError('closed', `readerd is not running (${this.closeInfo.reason})`);
    }
    if (options.token?.isCancellationRequested) {
      throw new ReaderdError('cancelled', `${method} cancelled`, ErrorCode.RequestCancelled);
    }
    const source = new CancellationTokenSource();
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const cleanups: Array<() => void> = [() => source.dispose()];
    let why: 'cancelled' | 'timeout' | undefined;
    const stopped = new Promise<never>((_, reject) => {
      const stop = (kind: 'cancelled' | 'timeout', message: string): void => {
        if (why) {
          return;
        }
        why = kind;
        source.cancel();
        // Give the daemon a moment to confirm with -32800 (or to answer), then give up.
        const grace = setTimeout(() => reject(new ReaderdError(kind, message, ErrorCode.RequestCancelled)), this.cancelGraceMs);
        cleanups.push(() => clearTimeout(grace));
      };
      if (options.token) {
        const sub = options.token.onCancellationRequested(() => stop('cancelled', `${method} cancelled`));
        cleanups.push(() => sub.dispose());
      }
      if (timeoutMs > 0) {
        const timer = setTimeout(
          () => stop('timeout', `readerd did not answer ${method} within ${timeoutMs} ms`),
          timeoutMs,
        );
        cleanups.push(() => clearTimeout(timer));
      }
    });
    stopped.catch(() => undefined);
    const token: CancellationToken = source.token;
    const sent = params === undefined
      ? this.connection.sendRequest<R>(method, token)
      : this.connection.sendRequest<R>(method, params, token);
    try {
      return await Promise.race([sent, stopped]);
    } catch (error) {
      if (isBrokenPipe(error) && !this.closeInfo) {
        // The daemon went away while the request was being written: wait for the exit status.
        await Promise.race([this.closed, delay(1_000)]);
      }
      throw this.translate(method, error, why, timeoutMs);
    } finally {
      for (const cleanup of cleanups) {
        cleanup();
      }
    }
  }

  private translate(method: string, error: unknown, why: 'cancelled' | 'timeout' | undefined, timeoutMs: number): Error {
    if (error instanceof ReaderdError) {
      return error;
    }
    if (error instanceof ResponseError) {
      if (error.code === ErrorCode.RequestCancelled) {
        return why === 'timeout'
          ? new ReaderdError('timeout', `readerd did not answer ${method} within ${timeoutMs} ms`, error.code)
          : new ReaderdError('cancelled', `${method} cancelled`, error.code);
      }
      if (this.closeInfo || isBrokenPipe(error) || error.code === -32097 /* PendingResponseRejected */ || error.code === -32096) {
        const reason = this.closeInfo?.reason ?? error.message;
        return new ReaderdError('closed', `readerd stopped before answering ${method} (${reason})`);
      }
      return new ReaderdError('rpc', `readerd: ${error.message}`, error.code, error.data);
    }
    const message = error instanceof Error ? error.message : String(error);
    if (this.closeInfo || isBrokenPipe(error)) {
      return new ReaderdError('closed', `readerd stopped before answering ${method} (${this.closeInfo?.reason ?? message})`);
    }
    return new ReaderdError('rpc', `readerd: ${message}`);
  }

  /** Sends a notification. */
  async notify(method: string, params?: object): Promise<void> {
    if (params === undefined) {
      await this.connection.sendNotification(method);
    } else {
      await this.connection.sendNotification(method, params);
    }
  }

  /**
   * Ends the connection politely: `shutdown`, then `exit`; waits up to `graceMs` for it to close,
   * then forces it (SIGTERM, then SIGKILL for a child).
   */
  async shutdown(graceMs = 2_000): Promise<CloseInfo> {
    if (this.closeInfo) {
      return this.closeInfo;
    }
    this.expectingClose = true;
    try {
      await this.request('shutdown', undefined, { timeoutMs: graceMs });
      await this.notify('exit');
    } catch (e) {
      this.note(`shutdown: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (this.socket) {
      this.socket.end();
    } else {
      this.output.end();
    }
    const closed = await Promise.race([this.closed, delay(graceMs).then(() => undefined)]);
    if (closed) {
      return closed;
    }
    this.dispose();
    return this.closed;
  }

  /** Ends the connection at once: kills the child (SIGTERM, SIGKILL after 2 s) or closes the socket. */
  dispose(): void {
    this.expectingClose = true;
    if (this.closeInfo) {
      return;
    }
    if (this.socket) {
      this.socket.destroy();
      return;
    }
    const child = this.child!;
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
      }
    }, 2_000);
    timer.unref();
    void this.closed.then(() => clearTimeout(timer));
  }

  private watchEnd(): void {
    const finish = (code: number | null, signal: NodeJS.Signals | null, reason: string): void => {
      if (this.closeInfo) {
        return;
      }
      this.closeInfo = { code, signal, expected: this.expectingClose, reason };
      // Rejects every pending request (vscode-jsonrpc does that on dispose).
      this.connection.dispose();
      this.resolveClosed(this.closeInfo);
      this.closeEmitter.fire(this.closeInfo);
      this.closeEmitter.dispose();
    };
    if (this.child) {
      const child = this.child;
      // 'close' comes after the exit and after stdout was read to its end, so every answer the
      // daemon wrote is delivered before pending requests are rejected.
      child.on('close', (code: number | null, signal: NodeJS.Signals | null) => {
        finish(code, signal, signal ? `killed by ${signal}` : `exited with status ${code}`);
      });
      child.stdin?.on('error', (error) => this.note(`stdin: ${error.message}`));
    } else {
      const socket = this.socket!;
      socket.on('error', (error) => this.note(`socket: ${error.message}`));
      socket.on('close', () => finish(null, null, 'socket closed'));
    }
  }

  private note(line: string): void {
    this.options.log?.(`[client] ${line}`);
  }
}

/** A write that failed because the other end is gone. */
function isBrokenPipe(error: unknown): boolean {
  if (error instanceof ResponseError) {
    return error.code === -32099; // MessageWriteError: vscode-jsonrpc could not write the request
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EPIPE' || code === 'ECONNRESET' || code === 'ERR_STREAM_DESTROYED' ||
    code === 'ERR_STREAM_WRITE_AFTER_END' ||
    (error instanceof Error && error.message === 'the connection to readerd is closed');
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref?.();
  });
}

export type { Disposable };
