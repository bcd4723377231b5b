// Line-delimited framing for vscode-jsonrpc.
//
// vscode-jsonrpc's StreamMessageReader/Writer speak LSP's `Content-Length:` header framing only;
// readerd frames one JSON message per line (docs/protocol.md, "Framing"). These two classes plug
// that framing into vscode-jsonrpc's AbstractMessageReader/Writer, so the rest of the JSON-RPC
// machinery (ids, response matching, `$/cancelRequest`, error objects) is the library's.

import type { Readable, Writable } from 'node:stream';
import {
  AbstractMessageReader,
  AbstractMessageWriter,
  DataCallback,
  Disposable,
  Message,
  MessageWriter,
} from 'vscode-jsonrpc/node';

/** Longest line accepted from the daemon; longer lines are reported and skipped. */
export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;

/** Reads one JSON-RPC message per `\n`-terminated line (a `\r` before it is accepted). */
export class LineMessageReader extends AbstractMessageReader {
  private callback: DataCallback | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private skipping = false;
  private closed = false;

  constructor(
    private readonly readable: Readable,
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ) {
    super();
  }

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    const onData = (data: Buffer | string): void => {
      this.onData(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    };
    const onError = (error: Error): void => this.fireError(error);
    const onClose = (): void => {
      if (this.closed) {
        return;
      }
      this.closed = true;
      this.fireClose();
    };
    this.readable.on('data', onData);
    this.readable.on('error', onError);
    this.readable.on('end', onClose);
    this.readable.on('close', onClose);
    return Disposable.create(() => {
      this.callback = undefined;
      this.readable.off('data', onData);
      this.readable.off('error', onError);
      this.readable.off('end', onClose);
      this.readable.off('close', onClose);
    });
  }

  private onData(data: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = data.indexOf(0x0a, start);
      if (nl === -1) {
        this.keep(data.subarray(start));
        return;
      }
      const piece = data.subarray(start, nl);
      start = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      let line = piece;
      if (this.pending.length > 0) {
        this.pending.push(piece);
        line = Buffer.concat(this.pending, this.pendingBytes + piece.length);
        this.pending = [];
        this.pendingBytes = 0;
      }
      this.handleLine(line);
    }
  }

  private keep(rest: Buffer): void {
    if (rest.length === 0 || this.skipping) {
      return;
    }
    this.pending.push(Buffer.from(rest));
    this.pendingBytes += rest.length;
    if (this.pendingBytes > this.maxLineBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = true;
      this.fireError(new Error(`readerd sent a line over ${this.maxLineBytes} bytes; skipped`));
    }
  }

  private handleLine(line: Buffer): void {
    let end = line.length;
    if (end > 0 && line[end - 1] === 0x0d) {
      end--;
    }
    const text = line.toString('utf8', 0, end);
    if (text.trim() === '') {
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (e) {
      this.fireError(new Error(`readerd sent a line that is not JSON: ${text.slice(0, 200)}`));
      return;
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      this.fireError(new Error(`readerd sent a line that is not a JSON-RPC message: ${text.slice(0, 200)}`));
      return;
    }
    this.callback?.(message as Message);
  }
}

/** Writes each JSON-RPC message as one line of JSON followed by `\n`. */
export class LineMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0;

  constructor(private readonly writable: Writable) {
    super();
    writable.on('error', (error: Error) => this.fireError(error));
    writable.on('close', () => this.fireClose());
  }

  write(msg: Message): Promise<void> {
    // JSON.stringify escapes every newline inside strings, so the line holds exactly one message.
    const data = JSON.stringify(msg) + '\n';
    return new Promise<void>((resolve, reject) => {
      if (this.writable.destroyed || this.writable.writableEnded) {
        const error = new Error('the connection to readerd is closed');
        this.errorCount++;
        this.fireError(error, msg, this.errorCount);
        reject(error);
        return;
      }
      this.writable.write(data, 'utf8', (error?: Error | null) => {
        if (error) {
          this.errorCount++;
          this.fireError(error, msg, this.errorCount);
          // A reader that went away (the daemon exited as the message was written): the end of
          // the connection rejects what waits for an answer. Rejecting here too would make
          // vscode-jsonrpc rethrow the error where nothing can catch it.
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'EPIPE' || code === 'ECONNRESET' || code === 'ERR_STREAM_DESTROYED') {
            resolve();
          } else {
            reject(error);
          }
        } else {
          this.errorCount = 0;
          resolve();
        }
      });
    });
  }

  end(): void {
    this.writable.end();
  }
}
