// The line-delimited reader and writer, on in-memory streams.

import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import type { Message } from 'vscode-jsonrpc/node';
import { LineMessageReader, LineMessageWriter } from '../../src/daemon/lineTransport';

function collect(reader: LineMessageReader): { messages: Message[]; errors: Error[] } {
  const out = { messages: [] as Message[], errors: [] as Error[] };
  reader.onError((e) => out.errors.push(e));
  reader.listen((m) => out.messages.push(m));
  return out;
}

test('lineTransport_reader_splits_lines_across_chunks', () => {
  const stream = new PassThrough();
  const reader = new LineMessageReader(stream);
  const out = collect(reader);
  const a = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'é\nnew line inside' } });
  const b = JSON.stringify({ jsonrpc: '2.0', id: 2, result: null });
  const bytes = Buffer.from(`${a}\r\n\n${b}\n`, 'utf8');
  // Byte by byte, so a UTF-8 character and the CR LF are split between chunks.
  for (let i = 0; i < bytes.length; i++) {
    stream.write(bytes.subarray(i, i + 1));
  }
  assert.equal(out.errors.length, 0);
  assert.deepEqual(out.messages, [JSON.parse(a), JSON.parse(b)]);
});

test('lineTransport_reader_reports_bad_lines_and_goes_on', () => {
  const stream = new PassThrough();
  const reader = new LineMessageReader(stream);
  const out = collect(reader);
  stream.write('{not json\n[1,2]\n{"jsonrpc":"2.0","id":3,"result":1}\n');
  assert.equal(out.errors.length, 2);
  assert.match(out.errors[0]!.message, /not JSON/);
  assert.deepEqual(out.messages, [{ jsonrpc: '2.0', id: 3, result: 1 }]);
});

test('lineTransport_reader_skips_overlong_line', () => {
  const stream = new PassThrough();
  const reader = new LineMessageReader(stream, 64);
  const out = collect(reader);
  stream.write('{"jsonrpc":"2.0","id":1,"result":"' + 'y'.repeat(50));
  stream.write('y'.repeat(50) + '"}\n{"jsonrpc":"2.0","id":2,"result":2}\n');
  assert.equal(out.errors.length, 1);
  assert.deepEqual(out.messages, [{ jsonrpc: '2.0', id: 2, result: 2 }]);
});

test('lineTransport_reader_fires_close_once_at_end', async () => {
  const stream = new PassThrough();
  const reader = new LineMessageReader(stream);
  let closes = 0;
  reader.onClose(() => closes++);
  reader.listen(() => undefined);
  stream.end();
  await new Promise((r) => setImmediate(r));
  stream.destroy();
  await new Promise((r) => setImmediate(r));
  assert.equal(closes, 1);
});

test('lineTransport_writer_writes_one_line_per_message', async () => {
  const stream = new PassThrough();
  const writer = new LineMessageWriter(stream);
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  const m1 = { jsonrpc: '2.0', id: 1, method: 'read', params: { paths: ['a\nb.txt'] } } as Message;
  const m2 = { jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 1 } } as Message;
  await writer.write(m1);
  await writer.write(m2);
  const lines = Buffer.concat(chunks).toString('utf8').split('\n');
  assert.equal(lines.length, 3);
  assert.equal(lines[2], '');
  assert.deepEqual(JSON.parse(lines[0]!), m1);
  assert.deepEqual(JSON.parse(lines[1]!), m2);
});

test('lineTransport_writer_rejects_after_end', async () => {
  const stream = new PassThrough();
  const writer = new LineMessageWriter(stream);
  writer.end();
  await assert.rejects(writer.write({ jsonrpc: '2.0' } as Message), /closed/);
});
