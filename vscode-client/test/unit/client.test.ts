// The JSON-RPC client against the real readerd binary, over stdio and over a Unix socket.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { ReaderdClient, ReaderdError } from '../../src/daemon/client';
import {
  alive,
  makeBigFile,
  makeWorkspace,
  readerdBinary,
  removeWorkspace,
  sleep,
  startSocketDaemon,
  stopProcess,
} from './helpers';

let root: string;
let big: string;

before(() => {
  root = makeWorkspace();
  big = makeBigFile(root);
});

after(() => removeWorkspace(root));

async function expectError(p: Promise<unknown>, kind: ReaderdError['kind'], code?: number): Promise<ReaderdError> {
  try {
    await p;
  } catch (error) {
    assert.ok(error instanceof ReaderdError, `expected a ReaderdError, got ${String(error)}`);
    assert.equal(error.kind, kind, `kind of "${error.message}"`);
    if (code !== undefined) {
      assert.equal(error.code, code, `code of "${error.message}"`);
    }
    return error;
  }
  assert.fail(`expected a ${kind} error`);
}

describe('client over stdio', () => {
  let client: ReaderdClient;

  before(async () => {
    client = await ReaderdClient.spawn(readerdBinary(), { cwd: '/' });
  });

  after(async () => {
    await client.shutdown();
  });

  test('client_initialize_reports_server_info', async () => {
    const result = await client.initialize({ rootPath: root, clientInfo: { name: 'unit-test' } });
    assert.equal(result.serverInfo.name, 'readerd');
    assert.match(result.serverInfo.version, /^\d+\.\d+/);
    assert.equal(typeof client.pid, 'number');
  });

  test('client_read_text_image_and_missing_in_order', async () => {
    const result = await client.read({ paths: ['a.txt', 'logo.png', 'gone.txt', 'a.txt'] });
    assert.deepEqual(result.files.map((f) => f.path), ['a.txt', 'logo.png', 'gone.txt', 'a.txt']);
    assert.equal(result.files[0]!.type, 'text');
    assert.equal(result.files[0]!.lines, 3);
    assert.equal(result.files[1]!.type, 'image');
    assert.equal(result.files[1]!.mediaType, 'image/png');
    assert.equal(result.files[2]!.code, 'FILE_NOT_FOUND');
    assert.equal(result.images.length, 1);
    const png = fs.readFileSync(path.join(root, 'logo.png'));
    assert.deepEqual(Buffer.from(result.images[0]!.data, 'base64'), png);
    // Relative paths resolved against initialize's rootPath, not the daemon's cwd (/).
    assert.match(result.xml, /<Content path='a.txt' type='text'[^>]*>\s*<!\[CDATA\[\s+1\talpha\n\s+2\tbeta/);
    assert.match(result.xml, /<Content path='gone.txt' code='FILE_NOT_FOUND'/);
    assert.equal(result.bytes, 2 * fs.statSync(path.join(root, 'a.txt')).size + png.length);
  });

  test('client_read_options_window_and_raw_lines', async () => {
    const result = await client.read({ paths: ['a.txt'], offset: 2, limit: 1, lineNumbers: false });
    assert.deepEqual(result.files[0]!.shown, [2, 2]);
    assert.equal(result.files[0]!.truncated, true);
    assert.match(result.xml, /<!\[CDATA\[beta\n/);
  });

  test('client_pipelined_requests_are_matched_by_id', async () => {
    const names = ['a.txt', 'src/main.c', 'docs/notes.txt', 'docs/my file.md'];
    const requests = Array.from({ length: 40 }, (_, i) => names[i % names.length]!);
    const results = await Promise.all(
      requests.map((p, i) => client.read({ paths: i % 3 === 0 ? [big, p] : [p], limit: 5 })),
    );
    results.forEach((r, i) => {
      assert.equal(r.files[r.files.length - 1]!.path, requests[i]);
    });
  });

  test('client_error_answers_become_rpc_errors', async () => {
    await expectError(client.read({ paths: [] }), 'rpc', -32602);
    await expectError(client.request('no/such/method', {}), 'rpc', -32601);
    // The connection is still good.
    const ok = await client.read({ paths: ['a.txt'] });
    assert.equal(ok.files[0]!.type, 'text');
  });

  test('client_cancel_sends_cancelRequest_and_daemon_confirms', async () => {
    const source = new CancellationTokenSource();
    const paths = Array.from({ length: 10_000 }, () => big);
    const started = Date.now();
    const pending = client.read({ paths }, { token: source.token, timeoutMs: 0 });
    setTimeout(() => source.cancel(), 50);
    // -32800 is what the daemon answers: the client waited for its confirmation.
    await expectError(pending, 'cancelled', -32800);
    assert.ok(Date.now() - started < 5000, 'cancelled promptly');
    const ok = await client.read({ paths: ['a.txt'] });
    assert.equal(ok.files[0]!.lines, 3);
  });

  test('client_already_cancelled_token_sends_nothing', async () => {
    const source = new CancellationTokenSource();
    source.cancel();
    await expectError(client.read({ paths: ['a.txt'] }, { token: source.token }), 'cancelled');
  });

  test('client_timeout_cancels_and_rejects', async () => {
    const paths = Array.from({ length: 10_000 }, () => big);
    const started = Date.now();
    const error = await expectError(client.read({ paths }, { timeoutMs: 100 }), 'timeout');
    assert.match(error.message, /within 100 ms/);
    assert.ok(Date.now() - started < 5000);
    const ok = await client.read({ paths: ['a.txt'] });
    assert.equal(ok.files[0]!.lines, 3);
  });

});

describe('client lifecycle', () => {
  test('client_shutdown_exits_zero', async () => {
    const client = await ReaderdClient.spawn(readerdBinary());
    const pid = client.pid!;
    const info = await client.shutdown();
    assert.equal(info.code, 0);
    assert.equal(info.expected, true);
    assert.equal(alive(pid), false);
    await expectError(client.read({ paths: ['/etc/hostname'] }), 'closed');
  });

  test('client_killed_daemon_rejects_pending_and_reports_close', async () => {
    const client = await ReaderdClient.spawn(readerdBinary());
    let closeReason = '';
    client.onDidClose((info) => (closeReason = info.reason));
    const pending = client.read({ paths: Array.from({ length: 10_000 }, () => big) }, { timeoutMs: 0 });
    await sleep(50);
    process.kill(client.pid!, 'SIGKILL');
    const error = await expectError(pending, 'closed');
    assert.match(error.message, /SIGKILL/);
    const info = await client.closed;
    assert.equal(info.signal, 'SIGKILL');
    assert.equal(info.expected, false);
    assert.equal(closeReason, 'killed by SIGKILL');
  });

  test('client_daemon_stderr_goes_to_log_and_exit_status_is_reported', async () => {
    const lines: string[] = [];
    // An option readerd does not know: it says so on stderr and exits 2 (usage error).
    const client = await ReaderdClient.spawn(readerdBinary(), { args: ['--no-such-option'], log: (l) => lines.push(l) });
    const info = await client.closed;
    assert.equal(info.code, 2);
    assert.equal(info.expected, false);
    assert.ok(lines.some((l) => /no-such-option/.test(l)), `stderr lines: ${JSON.stringify(lines)}`);
    await expectError(client.read({ paths: ['a.txt'] }), 'closed');
  });

  test('client_spawn_missing_binary_fails_to_start', async () => {
    await expectError(ReaderdClient.spawn(path.join(root, 'no-such-readerd')), 'start');
  });
});

describe('client over a socket', () => {
  let daemon: Awaited<ReturnType<typeof startSocketDaemon>>;
  let socketPath: string;

  before(async () => {
    socketPath = path.join(root, 'readerd.sock');
    daemon = await startSocketDaemon(socketPath);
  });

  after(async () => {
    await stopProcess(daemon);
  });

  test('client_socket_two_clients_with_their_own_roots', async () => {
    const a = await ReaderdClient.connect(socketPath);
    const b = await ReaderdClient.connect(socketPath);
    await a.initialize({ rootPath: root });
    await b.initialize({ rootPath: path.join(root, 'docs') });
    const [ra, rb] = await Promise.all([a.read({ paths: ['a.txt'] }), b.read({ paths: ['notes.txt'] })]);
    assert.equal(ra.files[0]!.lines, 3);
    assert.equal(rb.files[0]!.lines, 2);
    assert.equal(a.pid, undefined);
    // shutdown + exit closes a's connection only; the daemon serves b on.
    const info = await a.shutdown();
    assert.equal(info.reason, 'socket closed');
    const again = await b.read({ paths: ['my file.md'] });
    assert.equal(again.files[0]!.type, 'text');
    await b.shutdown();
    assert.ok(alive(daemon.pid!), 'socket daemon still running');
  });

  test('client_socket_cancel_and_timeout', async () => {
    const client = await ReaderdClient.connect(socketPath);
    const source = new CancellationTokenSource();
    const paths = Array.from({ length: 10_000 }, () => big);
    const pending = client.read({ paths }, { token: source.token, timeoutMs: 0 });
    setTimeout(() => source.cancel(), 50);
    await expectError(pending, 'cancelled', -32800);
    await expectError(client.read({ paths }, { timeoutMs: 100 }), 'timeout');
    const ok = await client.read({ paths: [path.join(root, 'a.txt')] });
    assert.equal(ok.files[0]!.lines, 3);
    await client.shutdown();
  });

  test('client_socket_connect_refused_fails_to_start', async () => {
    await expectError(ReaderdClient.connect(path.join(root, 'nobody.sock')), 'start');
  });
});
