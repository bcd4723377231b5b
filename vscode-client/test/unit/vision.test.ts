// readImages through DaemonManager and the real readerd, against tests/vision-server.py on
// 127.0.0.1: the key goes in initialize's vision (readImages refuses one per call), reaches the
// endpoint it was given with, follows setVision, and the answer's files say what failed.

import assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ReaderdClient, ReaderdError } from '../../src/daemon/client';
import { DaemonManager } from '../../src/daemon/manager';
import { ErrorCode } from '../../src/protocol';
import { failedFiles } from '../../src/commands/visionAnswer';
import { makeWorkspace, readerdBinary, removeWorkspace, REPO, waitFor } from './helpers';

let root: string;
let recorded: string;
let server: ChildProcess;
let port: number;
let manager: DaemonManager;
const KEY = 'sk-unit-vision-key-77ab';

function requests(): Array<{ path: string; headers: Record<string, string>; body: { model: string; messages: Array<{ content: Array<{ type: string; text?: string }> }> } }> {
  return fs.readdirSync(recorded).filter((f) => /^\d+\.json$/.test(f)).sort().map((f) => JSON.parse(fs.readFileSync(path.join(recorded, f), 'utf8')));
}

before(async () => {
  root = makeWorkspace();
  recorded = fs.mkdtempSync(path.join(os.tmpdir(), 'readerd-vision-'));
  server = spawn('python3', [path.join(REPO, 'tests', 'vision-server.py'), recorded], { stdio: 'ignore' });
  await waitFor(() => fs.existsSync(path.join(recorded, 'port')), 10_000, 'the vision server');
  port = Number(fs.readFileSync(path.join(recorded, 'port'), 'utf8'));
  manager = new DaemonManager({
    binary: readerdBinary(),
    rootPath: root,
    confineToRoot: true,
    vision: { baseUrl: `http://127.0.0.1:${port}/ok/v1`, model: 'unit-model', apiKey: KEY },
    requestTimeoutMs: 30_000,
    maxRestartDelayMs: 1000,
    env: { ...process.env, READERD_VISION_API_KEY: '', READERD_VISION_MODEL: '', READERD_VISION_BASE_URL: '' },
  });
  await manager.start();
});

after(async () => {
  await manager.stop();
  manager.dispose();
  server.kill();
  removeWorkspace(root);
  fs.rmSync(recorded, { recursive: true, force: true });
});

test('vision_key_through_initialize_reaches_its_endpoint', async () => {
  const result = await manager.readImages({ paths: ['logo.png', 'gone.png', 'a.txt'], query: 'What is it?', detail: 'low' });
  assert.equal(result.answer, "asked 'What is it?' about 1 image(s): low");
  assert.deepEqual(result.files.map((f) => f.code ?? f.type), ['image', 'FILE_NOT_FOUND', 'UNSUPPORTED_FORMAT']);
  assert.deepEqual(failedFiles(result.files).map((l) => l.split(': ').slice(0, 2).join(': ')), ['gone.png: FILE_NOT_FOUND', 'a.txt: UNSUPPORTED_FORMAT']);
  const sent = requests().at(-1)!;
  assert.equal(sent.headers.authorization, `Bearer ${KEY}`);
  assert.equal(sent.body.model, 'unit-model');
  assert.deepEqual(sent.body.messages[0]!.content.filter((p) => p.type === 'text').map((p) => p.text), ['What is it?']);
  assert.equal(sent.body.messages[0]!.content.filter((p) => p.type === 'image_url').length, 1);
});

test('vision_per_call_key_refused_and_set_vision_applies', async () => {
  await assert.rejects(
    manager.readImages({ paths: ['logo.png'], query: 'Q', apiKey: KEY } as never),
    (e: ReaderdError) => e.code === ErrorCode.InvalidParams && /apiKey is not a readImages param/.test(e.message) && !e.message.includes(KEY),
  );
  // A new endpoint and no key: the next call goes there, without any key.
  manager.setVision({ baseUrl: `http://127.0.0.1:${port}/status-401/v1`, model: 'other-model' });
  await assert.rejects(manager.readImages({ paths: ['logo.png'], query: 'Q' }), (e: ReaderdError) => e.code === ErrorCode.EndpointFailed && /HTTP 401/.test(e.message));
  const sent = requests().at(-1)!;
  assert.equal(sent.path, '/status-401/v1/chat/completions');
  assert.equal(sent.headers.authorization, undefined);
  assert.equal(sent.body.model, 'other-model');
});

test('vision_capability_announced', async () => {
  const info = manager.info();
  assert.equal(info.serverInfo?.name, 'readerd');
  const client = await ReaderdClient.spawn(readerdBinary());
  try {
    const init = await client.initialize({ rootPath: root });
    assert.deepEqual(init.capabilities.readImages?.providers, ['openai', 'anthropic']);
    assert.equal(init.capabilities.readImages?.maxPaths, 100);
    assert.ok((init.capabilities.read?.maxAnswerBytes ?? 0) > 0);
  } finally {
    await client.shutdown();
  }
});
