// The daemon manager against the real readerd: start, restart with back-off after a kill, stop.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ReaderdError } from '../../src/daemon/client';
import { DaemonManager, DaemonState } from '../../src/daemon/manager';
import {
  alive,
  makeWorkspace,
  readerdBinary,
  removeWorkspace,
  settingDefault,
  startSocketDaemon,
  stopProcess,
  waitFor,
} from './helpers';

let root: string;

/** What the settings give in the extension: package.json's defaults. */
const TIMING = { requestTimeoutMs: settingDefault<number>('requestTimeout'), maxRestartDelayMs: settingDefault<number>('maxRestartDelay') };

before(() => {
  root = makeWorkspace();
});

const managers: DaemonManager[] = [];

// A failed assertion must not leave a daemon behind (it would keep the test process alive).
after(async () => {
  for (const m of managers) {
    await m.stop().catch(() => undefined);
    m.dispose();
  }
  removeWorkspace(root);
});

function manager(extra: Partial<ConstructorParameters<typeof DaemonManager>[0]> = {}): { m: DaemonManager; states: DaemonState[] } {
  const m = new DaemonManager({ ...TIMING, binary: readerdBinary(), rootPath: root, minRestartDelayMs: 50, ...extra });
  managers.push(m);
  const states: DaemonState[] = [];
  m.onDidChangeState((info) => states.push(info.state));
  return { m, states };
}

test('daemon_start_initializes_with_root', async () => {
  const { m, states } = manager();
  await m.start();
  assert.equal(m.state, 'running');
  assert.deepEqual(states, ['starting', 'running']);
  assert.equal(m.info().serverInfo?.name, 'readerd');
  const result = await m.read({ paths: ['a.txt'] });
  assert.equal(result.files[0]!.lines, 3);
  const pid = m.info().pid!;
  await m.stop();
  assert.equal(m.state, 'stopped');
  assert.equal(alive(pid), false);
});

test('daemon_passes_the_workspace_fence', async () => {
  fs.writeFileSync(path.join(root, '.env'), 'KEY=secret\n');
  // Confined and excluding: the daemon refuses .env and anything outside the root.
  const { m } = manager({ confineToRoot: true, exclude: ['.env'] });
  await m.start();
  const fenced = await m.read({ paths: ['.env', '/etc/hostname', 'a.txt'] });
  assert.deepEqual(fenced.files.map((f) => f.code ?? f.type), ['ACCESS_DENIED', 'ACCESS_DENIED', 'text']);
  await m.stop();
  // Without them, both are read: the options are what changed the answer.
  const { m: open } = manager();
  await open.start();
  const plain = await open.read({ paths: ['.env', '/etc/hostname'] });
  assert.deepEqual(plain.files.map((f) => f.code ?? f.type), ['text', 'text']);
  await open.stop();
  // No root: confinement is not asked for, and the daemon starts all the same.
  const { m: rootless } = manager({ rootPath: undefined, confineToRoot: true });
  await rootless.start();
  assert.equal(rootless.state, 'running');
  await rootless.stop();
  fs.unlinkSync(path.join(root, '.env'));
});

test('daemon_restarts_after_kill', async () => {
  const { m, states } = manager();
  await m.start();
  const pid1 = m.info().pid!;
  process.kill(pid1, 'SIGKILL');
  await waitFor(() => m.state === 'running' && m.info().pid !== pid1, 5000, 'restart');
  const pid2 = m.info().pid!;
  assert.notEqual(pid2, pid1);
  assert.equal(m.info().restarts, 1);
  assert.ok(states.includes('restarting'));
  assert.match(m.info().lastError ?? '', /killed by SIGKILL/);
  const result = await m.read({ paths: ['src/main.c'] });
  assert.equal(result.files[0]!.lines, 3);
  await m.stop();
  assert.equal(alive(pid2), false);
});

test('daemon_read_waits_for_restart', async () => {
  const { m } = manager({ minRestartDelayMs: 300 });
  await m.start();
  process.kill(m.info().pid!, 'SIGKILL');
  await waitFor(() => m.state === 'restarting', 5000, 'restarting');
  const result = await m.read({ paths: ['a.txt'] });
  assert.equal(result.files[0]!.type, 'text');
  assert.equal(m.state, 'running');
  await m.stop();
});

test('daemon_backoff_doubles_on_quick_deaths', async () => {
  const { m } = manager({ minRestartDelayMs: 40, maxRestartDelayMs: 200, stableAfterMs: 60_000, maxQuickFailures: 10 });
  await m.start();
  const delays: number[] = [];
  for (let i = 0; i < 4; i++) {
    const pid = m.info().pid!;
    process.kill(pid, 'SIGKILL');
    await waitFor(() => m.state === 'running' && m.info().pid !== pid, 5000, `restart ${i + 1}`);
    delays.push(m.info().lastRestartDelayMs!);
  }
  assert.deepEqual(delays, [40, 80, 160, 200]);
  assert.equal(m.info().restarts, 4);
  await m.stop();
});

test('daemon_stop_during_restart_stays_stopped', async () => {
  const { m } = manager({ minRestartDelayMs: 500 });
  await m.start();
  process.kill(m.info().pid!, 'SIGKILL');
  await waitFor(() => m.state === 'restarting', 5000, 'restarting');
  await m.stop();
  await new Promise((r) => setTimeout(r, 700));
  assert.equal(m.state, 'stopped');
  assert.equal(m.info().pid, undefined);
});

test('daemon_missing_binary_fails', async () => {
  const m = new DaemonManager({ ...TIMING, binary: path.join(root, 'nope', 'readerd') });
  await assert.rejects(m.start(), (e: unknown) => e instanceof ReaderdError && e.kind === 'start');
  assert.equal(m.state, 'failed');
  await assert.rejects(m.read({ paths: ['a.txt'] }), /cannot start/);
});

test('daemon_socket_mode_reconnects_when_daemon_comes_back', async () => {
  const socketPath = path.join(root, 'mgr.sock');
  let daemon = await startSocketDaemon(socketPath);
  const m = new DaemonManager({ ...TIMING, socket: socketPath, rootPath: root, minRestartDelayMs: 50, maxRestartDelayMs: 200 });
  managers.push(m);
  after(() => stopProcess(daemon));
  await m.start();
  assert.equal((await m.read({ paths: ['a.txt'] })).files[0]!.lines, 3);
  await stopProcess(daemon);
  await waitFor(() => m.state === 'restarting', 5000, 'restarting after the socket daemon stopped');
  daemon = await startSocketDaemon(socketPath);
  await waitFor(() => m.state === 'running', 5000, 'reconnected');
  assert.equal((await m.read({ paths: ['docs/notes.txt'] })).files[0]!.lines, 2);
  await m.stop();
  assert.ok(alive(daemon.pid!), 'stop leaves the socket daemon running');
  await stopProcess(daemon);
});

test('daemon_missing_binary_is_said_in_words', async () => {
  const missing = path.join(root, 'nope', 'readerd');
  const m = new DaemonManager({ ...TIMING, binary: missing });
  await assert.rejects(m.start(), (e: unknown) => e instanceof ReaderdError && e.message.includes(missing) && !/spawn|ENOENT/.test(e.message));
});

test('daemon_program_that_exits_at_once_fails_after_three_tries', async () => {
  const lines: Array<[string, string | undefined]> = [];
  const m = new DaemonManager({ ...TIMING, binary: '/bin/true', minRestartDelayMs: 20, log: (line, level) => lines.push([line, level]) });
  managers.push(m);
  await m.start().catch(() => undefined);
  await waitFor(() => m.state === 'failed', 5000, 'failed after three quick failures');
  assert.match(m.info().lastError ?? '', /3 failures in a row.*\/bin\/true exited with status 0 before answering initialize/);
  assert.equal(m.info().restarts, 2, 'the first start and two restarts, then no more');
  assert.ok(lines.some(([line, level]) => level === 'error' && /before answering initialize/.test(line)), 'start failures are logged as errors');
  // No more restarts: the state stays failed, and a read fails at once with the reason.
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(m.state, 'failed');
  const t0 = Date.now();
  await assert.rejects(m.read({ paths: ['a.txt'] }), /3 failures in a row/);
  assert.ok(Date.now() - t0 < 500, `the read failed after ${Date.now() - t0} ms`);
  // Asked again (settings changed, or Restart), it tries a new series.
  await assert.rejects(m.start());
  assert.notEqual(m.state, 'running');
});

test('daemon_refuses_a_program_that_is_not_readerd', async () => {
  // A program that speaks the protocol but answers initialize as something else.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readerd-impostor-'));
  const impostor = path.join(dir, 'impostor');
  fs.writeFileSync(impostor, `#!${process.execPath}
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { serverInfo: { name: 'other', version: '9' } } }) + '\\n');
});
`);
  fs.chmodSync(impostor, 0o755);
  const m = new DaemonManager({ ...TIMING, binary: impostor, minRestartDelayMs: 20 });
  managers.push(m);
  await assert.rejects(m.start(), /is not readerd: it answered initialize as "other"/);
  assert.equal(m.state, 'failed', 'no retry: another program will not become readerd');
  await assert.rejects(m.read({ paths: ['a.txt'] }), /is not readerd/);
  fs.rmSync(dir, { recursive: true });
});
