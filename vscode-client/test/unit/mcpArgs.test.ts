// The `readerd mcp` command line VS Code is given: run through the real binary as an MCP client
// would (initialize, tools/list, tools/call), fenced to the folders with the settings' excludes.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { mcpServerArgs } from '../../src/chat/mcpArgs';
import { makeWorkspace, readerdBinary, removeWorkspace, settingDefault } from './helpers';

interface McpReply {
  id?: number;
  result?: { content?: Array<{ type: string; text?: string; mimeType?: string }>; isError?: boolean; tools?: Array<{ name: string }> };
  error?: { code: number; message: string };
}

/** Runs `readerd ARGS`, sends the requests one after another, returns the replies. */
async function converse(args: string[], requests: object[]): Promise<McpReply[]> {
  const child = spawn(readerdBinary(), args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const lines = readline.createInterface({ input: child.stdout });
  const replies: McpReply[] = [];
  const iterator = lines[Symbol.asyncIterator]();
  try {
    for (const request of requests) {
      child.stdin.write(`${JSON.stringify(request)}\n`);
      if (!('id' in request)) {
        continue;
      }
      // Lines up to this request's answer: the server's notifications (its log messages) may
      // come first, and are kept in order too.
      for (;;) {
        let timer: NodeJS.Timeout | undefined;
        const next = await Promise.race([
          iterator.next(),
          new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no reply; stderr: ${stderr}`)), 10_000))),
        ]).finally(() => clearTimeout(timer));
        assert.ok(!next.done, `readerd mcp ended early; stderr: ${stderr}`);
        const reply = JSON.parse(next.value as string) as McpReply;
        replies.push(reply);
        if (reply.id !== undefined) break;
      }
    }
  } finally {
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
  }
  return replies;
}

describe('readerd mcp as VS Code starts it', () => {
  let one: string;
  let two: string;
  before(() => {
    one = makeWorkspace();
    two = makeWorkspace();
    fs.writeFileSync(path.join(one, '.env'), 'API_KEY=secret\n');
    fs.writeFileSync(path.join(two, 'only-two.txt'), 'second folder\n');
    fs.writeFileSync(path.join(two, 'private.txt'), 'excluded by a setting\n');
  });
  after(() => {
    removeWorkspace(one);
    removeWorkspace(two);
  });

  test('mcp_args_roots_and_excludes', () => {
    assert.deepEqual(mcpServerArgs(['/a', '/b'], ['.env', ' ', '*.pem']), ['mcp', '--root', '/a', '--root', '/b', '--no-default-excludes', '--exclude', '.env', '--exclude', '*.pem']);
  });

  test('mcp_args_serve_read_files_fenced_to_the_folders', async () => {
    const args = mcpServerArgs([one, two], [...settingDefault<string[]>('exclude'), 'private.txt']);
    const replies = await converse(args, [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      {
        jsonrpc: '2.0', id: 3, method: 'tools/call',
        params: { name: 'read_files', arguments: { paths: ['a.txt', path.join(two, 'only-two.txt'), '.env', path.join(two, 'private.txt'), '/etc/hostname'] } },
      },
    ]);
    // The answers, in order; the server's log messages (notifications/message: a file refused
    // by an exclude) come between them.
    const answers = replies.filter((r) => r.id !== undefined);
    assert.deepEqual(answers.map((r) => r.id), [1, 2, 3]);
    assert.deepEqual(answers[1]!.result!.tools!.map((t) => t.name), ['read_files', 'list_files', 'workspace_info']);
    const texts = answers[2]!.result!.content!.map((c) => c.text ?? '');
    assert.equal(answers[2]!.result!.isError, false);
    assert.match(texts[0]!, /^<Content path='a.txt' type='text'[^>]*>\n<!\[CDATA\[\s+1\talpha/);
    assert.match(texts[1]!, /type='text'[^>]*>\n<!\[CDATA\[\s+1\tsecond folder/, 'the second folder is a root too');
    assert.match(texts[2]!, /path='.env' code='ACCESS_DENIED'/);
    assert.match(texts[3]!, /code='ACCESS_DENIED'/, 'the settings\' exclude patterns apply');
    assert.match(texts[4]!, /path='\/etc\/hostname' code='ACCESS_DENIED'/, 'outside every folder');
  });
});
