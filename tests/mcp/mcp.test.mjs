// `readerd mcp` driven by the official MCP TypeScript SDK client (and, for what the SDK does not
// let a client choose, raw JSON-RPC lines over stdio): the real binary named by READERD, on
// files this test writes into temporary folders and real files from Debian packages.
// Run by tests/mcp/check.sh (meson test 'mcp-sdk'); `node --test tests/mcp/` works too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Ajv from 'ajv';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ErrorCode,
  LATEST_PROTOCOL_VERSION,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { contentOf, goFiles, imageSize, linesOf, pdfPageCount, realFile, sessionOf } from './lib.mjs';

const READERD = process.env.READERD;
const HERE = path.dirname(fileURLToPath(import.meta.url));
// The revisions the server implements, newest first (docs/mcp.md).
const SERVER_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
// What tools/list lists without a vision model.
const TOOLS = ['read_files', 'list_files', 'workspace_info'];

const GO = '/usr/share/go-1.19/src';
const PIXBUF = realFile(['/usr/libexec/installed-tests/gdk-pixbuf', '/usr/share/installed-tests/gdk-pixbuf'],
  'issue70.jpg');
const TASN1_PDF = '/usr/share/doc/libtasn1-doc/libtasn1.pdf';

const ODD = "it's & <odd> ]]> ü.txt"; // a name and text that XML must escape
let tmp; // the workspace: files written here
let outside; // a folder beside it, outside every fence but the cwd one of some tests

before(() => {
  assert.ok(READERD, 'READERD names the readerd binary');
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'readerd-mcp-'));
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'readerd-mcp-out-'));
  fs.writeFileSync(path.join(tmp, 'hello.txt'), 'first line\nsecond line\n\tthird, tabbed\n');
  fs.writeFileSync(path.join(tmp, 'no-newline.txt'), 'a\nb');
  fs.writeFileSync(path.join(tmp, ODD), 'x ]]> y\r\nü\r\n');
  fs.writeFileSync(path.join(tmp, '.env'), 'API_KEY=do-not-read\n');
  fs.writeFileSync(path.join(tmp, 'server.pem'), '-----BEGIN PRIVATE KEY-----\n');
  fs.writeFileSync(path.join(tmp, 'build.log'), 'a log line\n');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside the workspace\n');
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(tmp, 'link-out.txt'));
});

after(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

// Starts `readerd mcp ARGS` and connects an SDK client to it. `stderr` collects the server's log
// so that a failure can show it. The answers of big reads pass the SDK's 10 MiB default buffer.
// `shell`, when given, runs before the server in the same process (`sh -c 'SHELL; exec readerd mcp'`).
async function connect({ args = [], cwd = tmp, capabilities = {}, onRootsList, shell, clientName = 'readerd-mcp-test' } = {}) {
  const transport = new StdioClientTransport({
    command: shell ? '/bin/sh' : READERD,
    args: shell ? ['-c', `${shell}; exec "$0" mcp "$@"`, READERD, ...args] : ['mcp', ...args],
    cwd,
    env: { ...process.env },
    stderr: 'pipe',
    maxBufferSize: 256 << 20,
  });
  let log = '';
  const logWaits = [];
  transport.stderr.on('data', (d) => {
    log += d;
    for (const w of logWaits.splice(0)) if (!w.re.test(log)) logWaits.push(w); else w.res();
  });
  // Resolves when the server's log says re: on the stderr event that brings it, since the
  // pipe may deliver it after the answer the line led to.
  const logged = (re, ms = 5000) => within(new Promise((res) => {
    if (re.test(log)) res(); else logWaits.push({ re, res });
  }), ms, `log line ${re}`);
  let negotiated;
  transport.setProtocolVersion = (v) => { negotiated = v; };
  const client = new Client({ name: clientName, version: '1.0.0' }, { capabilities });
  const errors = [];
  client.onerror = (e) => errors.push(e);
  if (onRootsList) client.setRequestHandler(ListRootsRequestSchema, onRootsList);
  await client.connect(transport);
  const exited = new Promise((res) => transport._process?.once('exit', (code, signal) => res({ code, signal })));
  // Closes the session: the server must exit at once, cleanly, and (under the sanitizers)
  // report nothing on stderr.
  const close = async () => {
    await client.close();
    const { code, signal } = await within(exited, 10000, 'exit of readerd mcp');
    assert.doesNotMatch(log, /Sanitizer|runtime error:/, log);
    assert.equal(signal, null, `readerd mcp was killed by ${signal}: ${log}`);
    assert.equal(code, 0, `readerd mcp exit status: ${log}`);
  };
  return { client, transport, errors, close, negotiated: () => negotiated, log: () => log, logged };
}

// Resolves as p does, or rejects after ms with what was awaited.
function within(p, ms, what) {
  let timer;
  const late = new Promise((res, rej) => { timer = setTimeout(() => rej(new Error(`no ${what} within ${ms} ms`)), ms); });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

async function read(client, args, options) {
  return client.callTool({ name: 'read_files', arguments: args }, undefined, options);
}

// The one text block of a one-path read, as { attrs, body, lines }.
function onlyContent(result) {
  assert.equal(result.isError, false, JSON.stringify(result).slice(0, 500));
  assert.equal(result.content.length, 1, 'one block');
  assert.equal(result.content[0].type, 'text');
  return contentOf(result.content[0].text);
}

// Checks a text <Content> against the file on disk: size, whole-file line count, mtime,
// encoding, the lines shown and their cat -n numbering.
function assertMatchesDisk(c, file, first = 1, count = Infinity) {
  const st = fs.statSync(file);
  const lines = linesOf(fs.readFileSync(file, 'utf8'));
  assert.equal(c.attrs.type, 'text');
  assert.equal(Number(c.attrs.bytes), st.size, 'bytes');
  assert.equal(Number(c.attrs.lines), lines.length, 'lines');
  assert.equal(c.attrs.modified, new Date(Math.floor(st.mtimeMs)).toISOString(), 'modified');
  assert.equal(c.attrs.encoding, 'utf-8');
  const last = Math.min(lines.length, first + count - 1);
  assert.equal(c.attrs.shown, `${first}-${last}`);
  const want = lines.slice(first - 1, last).map((l, i) => `${String(first + i).padStart(6)}\t${l}`);
  assert.deepEqual(c.lines.slice(0, want.length), want);
}

describe('initialize', () => {
  test('initialize_sdk_default: serverInfo, capabilities, instructions, a revision both know', async () => {
    const s = await connect();
    try {
      const info = s.client.getServerVersion();
      const version = spawnSync(READERD, ['--version'], { encoding: 'utf8' }).stdout.trim();
      assert.equal(info.name, 'readerd');
      assert.equal(info.title, 'readerd');
      assert.equal(`readerd ${info.version}`, version);
      assert.deepEqual(s.client.getServerCapabilities().tools, { listChanged: false });
      assert.equal(typeof s.client.getInstructions(), 'string');
      assert.ok(s.client.getInstructions().length > 0);
      // The SDK asks for its newest revision; the server echoes it when it knows it, else
      // answers its own newest, which the SDK must accept.
      const want = SERVER_REVISIONS.includes(LATEST_PROTOCOL_VERSION) ? LATEST_PROTOCOL_VERSION : SERVER_REVISIONS[0];
      assert.equal(s.negotiated(), want);
      assert.deepEqual(await s.client.ping(), {});
    } finally {
      await s.close();
    }
  });

  for (const [asked, answered] of [['2024-11-05', '2024-11-05'], ['2025-03-26', '2025-03-26'],
    ['2025-06-18', '2025-06-18'], ['2025-11-25', '2025-11-25'], ['1999-01-01', '2025-11-25'],
    ['2026-07-28', '2025-11-25']]) {
    test(`initialize_raw_${asked}: answered with ${answered}`, async () => {
      const s = sessionOf(READERD, ['mcp'], tmp);
      try {
        const init = await s.call('initialize', {
          protocolVersion: asked, capabilities: {}, clientInfo: { name: 'raw', version: '0' },
        });
        assert.equal(init.result.protocolVersion, answered);
        assert.equal(init.result.serverInfo.name, 'readerd');
        s.notify('notifications/initialized');
        assert.deepEqual((await s.call('ping')).result, {});
        const list = await s.call('tools/list');
        assert.deepEqual(list.result.tools.map((t) => t.name), TOOLS);
        assert.equal(list.result.resultType, undefined, 'the initialize era has no resultType');
        const unknown = await s.call('resources/subscribe_everything', {});
        assert.equal(unknown.error.code, -32601);
        const r = await s.call('tools/call', { name: 'read_files', arguments: { paths: ['hello.txt'] } });
        assert.equal(r.result.isError, false);
        assert.match(r.result.content[0].text, /^<Content path='hello.txt' type='text'/);
      } finally {
        const { code, stdoutJunk, stderr } = await s.close();
        assert.doesNotMatch(stderr, /Sanitizer|runtime error:/, stderr);
        assert.equal(code, 0, 'exit status when stdin closes');
        assert.deepEqual(stdoutJunk, [], 'stdout holds JSON-RPC lines only');
      }
    });
  }
});

describe('tools', () => {
  let s;
  before(async () => {
    const roots = [tmp, GO, PIXBUF && path.dirname(PIXBUF), path.dirname(TASN1_PDF)].filter((r) => r && fs.existsSync(r));
    s = await connect({ args: roots.flatMap((r) => ['--root', r]) });
  });
  after(async () => { await s.close(); });

  test('list_tools_read_files: the tool, its annotations and a schema that works', async () => {
    const { tools } = await s.client.listTools();
    assert.deepEqual(tools.map((x) => x.name), TOOLS);
    for (const x of tools) assert.ok(x.description.length < 2048, `${x.name}: a description Claude Code keeps whole`);
    const t = tools[0];
    assert.equal(t.name, 'read_files');
    assert.equal(typeof t.description, 'string');
    assert.equal(t.annotations.title, 'Read files');
    assert.equal(t.annotations.readOnlyHint, true);
    assert.equal(t.annotations.openWorldHint, false);
    const schema = t.inputSchema;
    assert.equal(schema.type, 'object');
    assert.deepEqual(schema.required, ['paths']);
    assert.equal(schema.additionalProperties, false);
    for (const k of ['paths', 'offset', 'limit', 'pages', 'render', 'images']) {
      assert.ok(k in schema.properties, `schema has ${k}`);
    }
    assert.equal(schema.properties.paths.minItems, 1);
    assert.equal(schema.properties.paths.maxItems, 10000);
    // What clients validate arguments with: the schema compiles, takes good arguments and
    // refuses bad ones.
    const valid = new Ajv({ strict: false }).compile(schema);
    for (const good of [{ paths: ['a'] }, { paths: ['a', { path: 'b.pdf', pages: '1-3', render: true }] },
      { paths: [{ path: 'x', offset: 3, limit: 4, password: 'pw' }], offset: 1, limit: 2, pages: '2',
        render: false, images: { maxDimension: 800, maxTotalBytes: 0 } }]) {
      assert.ok(valid(good), `${JSON.stringify(good)}: ${JSON.stringify(valid.errors)}`);
    }
    for (const bad of [{}, { paths: [] }, { paths: [''] }, { paths: 'a' }, { paths: [3] },
      { paths: ['a'], offset: 0 }, { paths: ['a'], limit: 1.5 }, { paths: ['a'], extra: 1 },
      { paths: [{ offset: 1 }] }, { paths: [{ path: 'a', what: 1 }] }, { paths: ['a'], images: { maxDimension: 8 } },
      { paths: ['a'], images: { maxDimension: 9000 } }, { paths: ['a'], render: 'yes' }]) {
      assert.ok(!valid(bad), `schema refuses ${JSON.stringify(bad)}`);
    }
  });

  test('read_text: line numbers and <Content> attributes match the files', async () => {
    const c = onlyContent(await read(s.client, { paths: ['hello.txt'] }));
    assert.equal(c.attrs.path, 'hello.txt');
    assertMatchesDisk(c, path.join(tmp, 'hello.txt'));
    assert.equal(c.attrs.eol, 'lf');
    const go = path.join(GO, 'fmt', 'print.go');
    const g = onlyContent(await read(s.client, { paths: [go] }));
    assert.equal(g.attrs.path, go);
    assertMatchesDisk(g, go);
    const n = onlyContent(await read(s.client, { paths: [path.join(tmp, 'no-newline.txt')] }));
    assertMatchesDisk(n, path.join(tmp, 'no-newline.txt'));
    const odd = onlyContent(await read(s.client, { paths: [ODD] }));
    assert.equal(odd.attrs.path, ODD);
    assert.equal(odd.attrs.eol, 'crlf');
    assert.deepEqual(odd.lines, ['     1\tx ]]> y', '     2\tü']);
  });

  test('read_text_window: offset and limit, per call and per path', async () => {
    const go = path.join(GO, 'fmt', 'print.go');
    const r = await read(s.client, { paths: [go, { path: go, offset: 100, limit: 7 }], offset: 10, limit: 5 });
    assert.equal(r.isError, false);
    assert.equal(r.content.length, 2);
    const a = contentOf(r.content[0].text);
    const b = contentOf(r.content[1].text);
    assertMatchesDisk(a, go, 10, 5);
    assertMatchesDisk(b, go, 100, 7);
    assert.equal(a.attrs.truncated, 'true');
    assert.match(r.content[1].text, /continue with offset=107/);
  });

  test('read_image: an image block whose picture has the size readerd reports', { skip: !PIXBUF && 'SKIP: gdk-pixbuf-tests is not installed' }, async () => {
    const dir = path.dirname(PIXBUF);
    for (const name of ['issue70.jpg', 'bug725582-testrotate.png']) {
      const r = await read(s.client, { paths: [path.join(dir, name)] });
      assert.equal(r.isError, false);
      assert.equal(r.content.length, 2, `${name}: a text block and an image block`);
      const c = contentOf(r.content[0].text);
      assert.equal(c.attrs.type, 'image');
      assert.equal(Number(c.attrs.bytes), fs.statSync(path.join(dir, name)).size);
      const img = r.content[1];
      assert.equal(img.type, 'image');
      assert.equal(img.mimeType, c.attrs.mediaType);
      const size = imageSize(Buffer.from(img.data, 'base64'));
      assert.equal(size.mimeType, img.mimeType, `${name}: the data is what mimeType says`);
      assert.equal(size.width, Number(c.attrs.width), `${name}: width`);
      assert.equal(size.height, Number(c.attrs.height), `${name}: height`);
      assert.ok(Math.max(size.width, size.height) <= 1568, `${name}: long edge within the default`);
    }
    // Blocks in path order: each file's text block, then its picture.
    const mixed = await read(s.client, { paths: [path.join(dir, 'bug725582-testrotate.png'), 'hello.txt', 'missing.png'] });
    assert.deepEqual(mixed.content.map((b) => b.type), ['text', 'image', 'text', 'text']);
    assert.equal(contentOf(mixed.content[2].text).attrs.path, 'hello.txt');
    assert.equal(contentOf(mixed.content[3].text).attrs.code, 'FILE_NOT_FOUND');
    // The 3120x4208 phone photo is scaled to the default long edge of 1568.
    const big = await read(s.client, { paths: [PIXBUF], images: { maxDimension: 400 } });
    const c = contentOf(big.content[0].text);
    assert.equal(Math.max(Number(c.attrs.width), Number(c.attrs.height)), 400);
    assert.equal(Math.max(Number(c.attrs.originalWidth), Number(c.attrs.originalHeight)), 4208);
    const size = imageSize(Buffer.from(big.content[1].data, 'base64'));
    assert.equal(Math.max(size.width, size.height), 400);
  });

  test('read_pdf_render: page text and one picture block per rendered page', { skip: !fs.existsSync(TASN1_PDF) && 'SKIP: libtasn1-doc is not installed' }, async () => {
    const r = await read(s.client, { paths: [TASN1_PDF], pages: '1-2', render: true });
    assert.equal(r.isError, false);
    assert.equal(r.content.length, 3, 'a text block, then two page pictures');
    const c = contentOf(r.content[0].text);
    assert.equal(c.attrs.type, 'pdf');
    const pages = pdfPageCount(TASN1_PDF);
    if (pages !== null) assert.equal(Number(c.attrs.pages), pages);
    assert.equal(c.attrs.truncated, 'true');
    assert.match(r.content[0].text, /<Page number='1' image='0'>/);
    assert.match(r.content[0].text, /<Page number='2' image='1'>/);
    assert.doesNotMatch(r.content[0].text, /<Page number='3'/);
    for (const img of r.content.slice(1)) {
      assert.equal(img.type, 'image');
      const size = imageSize(Buffer.from(img.data, 'base64'));
      assert.equal(size.mimeType, img.mimeType);
      assert.equal(Math.max(size.width, size.height), 1568, 'rendered at the default long edge');
    }
    // Without render: the text alone, no picture.
    const plain = await read(s.client, { paths: [{ path: TASN1_PDF, pages: '3' }] });
    assert.equal(plain.content.length, 1);
    assert.match(plain.content[0].text, /<Page number='3'>/);
  });

  test('read_missing: FILE_NOT_FOUND inside the result, the other files read', async () => {
    const r = await read(s.client, { paths: ['missing.txt', 'hello.txt', path.join(tmp, 'nope', 'x.c')] });
    assert.equal(r.isError, false);
    assert.equal(r.content.length, 3);
    const [a, b, c] = r.content.map((x) => contentOf(x.text));
    assert.equal(a.attrs.path, 'missing.txt');
    assert.equal(a.attrs.code, 'FILE_NOT_FOUND');
    assert.ok(a.attrs.error.length > 0);
    assert.equal(b.attrs.path, 'hello.txt');
    assert.equal(b.attrs.type, 'text');
    assert.equal(c.attrs.code, 'FILE_NOT_FOUND');
  });

  test('bad_arguments: isError with a message naming the argument; the session goes on', async () => {
    const cases = [
      [{}, 'paths'],
      [{ paths: 'hello.txt' }, 'paths'],
      [{ paths: [] }, 'paths'],
      [{ paths: [''] }, 'paths'],
      [{ paths: [42] }, 'paths'],
      [{ paths: [{ offset: 2 }] }, 'path'],
      [{ paths: ['hello.txt'], offset: -1 }, 'offset'],
      [{ paths: ['hello.txt'], path: 'hello.txt' }, 'not both'],
      [{ path: 'hello.txt', start_line: 5, end_line: 2 }, 'end_line'],
      [{ paths: ['hello.txt'], limit: 'ten' }, 'limit'],
      [{ paths: ['hello.txt'], colour: 'blue' }, 'colour'],
      [{ paths: [{ path: 'hello.txt', colour: 'blue' }] }, 'colour'],
      [{ paths: ['hello.txt'], render: 'yes' }, 'render'],
      [{ paths: ['hello.txt'], images: { maxDimension: 5 } }, 'maxDimension'],
      [{ paths: [TASN1_PDF], pages: 'one to three' }, 'pages'],
      [{ paths: Array(10001).fill('hello.txt') }, 'paths'],
      // 2 ** 63 goes out as 9223372036854776000: past 64 bits, still the tool's error.
      [{ paths: ['hello.txt'], offset: 2 ** 63 }, '64 bits'],
      [{ paths: [{ path: 'hello.txt', limit: -(2 ** 64) }] }, '64 bits'],
      [{ paths: ['hello.txt'], expand: { maxfiles: 3 } }, 'maxfiles'],
      [{ paths: ['hello.txt'], images: { detial: 'low' } }, 'detial'],
    ];
    for (const [args, name] of cases) {
      const r = await read(s.client, args);
      const what = JSON.stringify(args).slice(0, 80);
      assert.equal(r.isError, true, `${what} is an error`);
      assert.equal(r.content.length, 1, what);
      assert.equal(r.content[0].type, 'text', what);
      assert.ok(r.content[0].text.includes(name), `${what}: "${r.content[0].text}" names ${name}`);
    }
    assert.deepEqual(await s.client.ping(), {});
    onlyContent(await read(s.client, { paths: ['hello.txt'] }));
  });

  test('raw_arguments: arguments only a hand-written line holds are judged as json-glib reads them; the session goes on', async () => {
    const r = sessionOf(READERD, ['mcp', '--root', tmp], tmp);
    const call = (args) => r.callRaw((id) => Buffer.concat([
      Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"read_files","arguments":`),
      Buffer.from(args), Buffer.from('}}')]));
    const text = (a) => a.result.content.map((b) => b.text).join('');
    try {
      await r.call('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } });
      r.notify('notifications/initialized');
      // A repeated member: its last value.
      let a = await call('{"paths":["nope.txt"],"paths":["hello.txt"]}');
      assert.equal(a.result.isError, false);
      assert.match(text(a), /^<Content path='hello.txt' type='text'/);
      a = await call('{"paths":["hello.txt"],"paths":7}');
      assert.equal(text(a), 'paths must be a non-empty array of paths');
      a = await r.callRaw((id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"read_files","arguments":{"paths":["nope.txt"]},"arguments":{"paths":["hello.txt"]}}}`);
      assert.match(text(a), /^<Content path='hello.txt' type='text'/);
      // 10,000 paths, the last one not a string; 10,001 paths.
      a = await call(JSON.stringify({ paths: [...Array(9999).fill('hello.txt'), 7] }));
      assert.equal(text(a), 'paths[9999] must be a non-empty string or an object with a "path" or "pathBytes"');
      a = await call(JSON.stringify({ paths: Array(10001).fill('hello.txt') }));
      assert.equal(text(a), 'paths must have at most 10000 items');
      // Unknown members, deep or not; numbers out of range.
      a = await call(`{"paths":["hello.txt"],"x":${'['.repeat(100)}${']'.repeat(100)}}`);
      assert.equal(text(a), 'unknown argument x');
      a = await call('{"paths":["hello.txt"],"offset":1e400}');
      assert.equal(text(a), 'offset must be an integer >= 1');
      a = await call('{"paths":["hello.txt"],"limit":99999999999999999999}');
      assert.equal(text(a), 'invalid arguments: integers must fit in 64 bits');
      // Bytes that are not UTF-8, nesting past the limit: the line's parse error (id null).
      r.callRaw(() => Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"u","method":"tools/call","params":{"name":"read_files","arguments":{"paths":["a'), Buffer.from([0xff]), Buffer.from('"]}}}')]));
      r.callRaw(() => `{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":"read_files","arguments":{"paths":["a"],"x":${'['.repeat(126)}${']'.repeat(126)}}}}`);
      assert.deepEqual((await r.call('ping')).result, {});
      assert.deepEqual(r.incoming.filter((m) => m.id === null).map((m) => m.error.code), [-32700, -32700]);
      a = await call('{"paths":["hello.txt"]}');
      assert.equal(a.result.isError, false);
    } finally {
      const { code, stderr } = await r.close();
      assert.doesNotMatch(stderr, /Sanitizer|runtime error:/, stderr);
      assert.equal(code, 0);
    }
  });

  test('unknown_tool: a JSON-RPC error, -32602', async () => {
    await assert.rejects(s.client.callTool({ name: 'write_files', arguments: { paths: ['x'] } }), (e) => {
      assert.ok(e instanceof McpError, String(e));
      assert.equal(e.code, ErrorCode.InvalidParams);
      return true;
    });
    onlyContent(await read(s.client, { paths: ['hello.txt'] }));
  });

  test('budget: 25,000 tokens by default, the rest named or summarized; skip; a budget argument; _meta asks for room', async () => {
    const files = goFiles(GO, 300);
    // One block per file up to the <Omitted> summary, which counts the rest and names the
    // first of them and the skip that reads it next.
    const summaryOf = (r) => {
      const texts = r.content.filter((b) => b.type === 'text').map((b) => b.text);
      const at = texts.findIndex((t) => t.startsWith('<Omitted '));
      return { texts: at < 0 ? texts : texts.slice(0, at), summary: at < 0 ? null : texts[at] };
    };
    const tokensOf = (r) => {
      assert.equal(r.isError, false, JSON.stringify(r).slice(0, 300));
      const { texts, summary } = summaryOf(r);
      const cs = texts.map((t) => contentOf(t));
      cs.forEach((c, i) => assert.equal(c.attrs.path, files[i]));
      if (summary === null) {
        assert.equal(cs.length, files.length);
      } else {
        const m = /<Omitted files='(\d+)'[^>]* first='([^']*)' skip='(\d+)'/.exec(summary);
        assert.ok(m, summary);
        assert.equal(cs.length + Number(m[1]), files.length);
        assert.equal(m[2], files[cs.length]);
        assert.equal(Number(m[3]), cs.length);
      }
      return cs;
    };
    const r = await read(s.client, { paths: files });
    const cs = tokensOf(r);
    const sum = cs.reduce((n, c) => n + Number(c.attrs.tokens), 0);
    // The content's share: the markup, the listing and the summary take the rest.
    assert.ok(sum <= 25000 && sum > 15000, `${sum} tokens`);
    const { summary } = summaryOf(r);
    assert.ok(summary !== null, 'the files past the listing are summarized');
    const skip = Number(/skip='(\d+)'/.exec(summary)[1]);
    const next = await read(s.client, { paths: files, skip });
    assert.equal(contentOf(next.content[0].text).attrs.path, files[skip]);
    assert.equal(contentOf(next.content[0].text).attrs.omitted, undefined);
    const omitted = cs.filter((c) => c.attrs.omitted === 'budget');
    assert.ok(omitted.length > 0, 'files left out are named');
    for (const c of omitted) {
      assert.equal(c.body, '');
      assert.ok(Number(c.attrs.tokensTotal) > 0);
      assert.equal(Number(c.attrs.bytes), fs.statSync(c.attrs.path).size);
    }
    const chars = r.content.reduce((n, b) => n + (b.text?.length ?? 0), 0);
    assert.ok(chars > 50000, `${chars} characters`);
    assert.ok(r._meta['anthropic/maxResultSizeChars'] >= chars, JSON.stringify(r._meta));
    assert.ok(r._meta['anthropic/maxResultSizeChars'] <= 500000);
    // A smaller budget the call asks for; a small answer needs no _meta.
    const small = await read(s.client, { paths: files.slice(0, 3), budget: { tokens: 1500 } });
    const ss = small.content.map((b) => contentOf(b.text));
    assert.ok(ss.reduce((n, c) => n + Number(c.attrs.tokens), 0) <= 1500);
    assert.equal(small._meta?.['anthropic/maxResultSizeChars'], undefined);
    const bad = await read(s.client, { paths: files, budget: { tokens: 0 } });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /budget\.tokens must be an integer >= 1/);
    // plan: what each file would cost, no content.
    const plan = await read(s.client, { paths: files.slice(0, 5), plan: true });
    for (const c of plan.content.map((b) => contentOf(b.text))) {
      assert.equal(c.body, '');
      assert.ok(Number(c.attrs.tokensTotal) >= Number(c.attrs.tokens));
    }
  });

  test('pathBytes: a name that is not UTF-8 comes with its exact spelling, which reads it back', async () => {
    const dir = path.join(tmp, 'names');
    fs.mkdirSync(dir, { recursive: true });
    const ff = Buffer.concat([Buffer.from(path.join(dir, 'a')), Buffer.from([0xff]), Buffer.from('.txt')]);
    const fe = Buffer.concat([Buffer.from(path.join(dir, 'a')), Buffer.from([0xfe]), Buffer.from('.txt')]);
    fs.writeFileSync(ff, 'ff\n');
    fs.writeFileSync(fe, 'fe\n');
    const r = await read(s.client, { paths: [dir] });
    assert.equal(r.isError, false, JSON.stringify(r).slice(0, 300));
    const cs = r.content.filter((b) => b.type === 'text' && b.text.startsWith('<Content')).map((b) => contentOf(b.text));
    const spellings = cs.map((c) => c.attrs.pathBytes);
    assert.equal(new Set(spellings).size, 2, JSON.stringify(spellings));
    for (const c of cs) {
      const again = await read(s.client, { paths: [{ pathBytes: c.attrs.pathBytes }] });
      const a = contentOf(again.content[0].text);
      assert.equal(a.attrs.pathBytes, c.attrs.pathBytes);
      assert.equal(a.lines[0].split('\t')[1], c.attrs.pathBytes.endsWith('\\xff.txt') ? 'ff' : 'fe');
    }
  });

  test('budget: each client named in docs/mcp.md gets its own default', async () => {
    const files = goFiles(GO, 300);
    // clientInfo.name as each client sends it, and the default docs/mcp.md gives it.
    const clients = [['codex-mcp-client', 10000], ['gemini-cli-mcp-client', 8000], ['opencode', 10000],
      ['Cline', 25000], ['claude-ai', 25000], ['Visual Studio Code', 25000], ['some-other-client', 25000]];
    for (const [name, budget] of clients) {
      const c = await connect({ clientName: name, args: ['--root', GO] });
      try {
        const r = await read(c.client, { paths: files });
        assert.equal(r.isError, false, name);
        const cs = r.content.filter((b) => b.type === 'text' && b.text.startsWith('<Content')).map((b) => contentOf(b.text));
        const sum = cs.reduce((n, x) => n + Number(x.attrs.tokens), 0);
        // The content's share of the client's budget: more than half of it, never past it.
        assert.ok(sum <= budget && sum > budget / 2, `${name}: ${sum} tokens of ${budget}`);
        const chars = r.content.reduce((n, b) => n + (b.text?.length ?? 0), 0);
        if (name === 'gemini-cli-mcp-client') assert.ok(chars <= 40000, `${name}: ${chars} characters`);
      } finally {
        await c.close();
      }
    }
  });

  test('cancel: a read of the Go tree aborted at its first progress rejects, no answer comes for it, the server goes on', async () => {
    // Every Go file, twice over: 10,000 paths, each of them read (a budget out of the way). The
    // first progress comes once a lane has read its first files (256 at most), with nearly all
    // of the read still to do: the read is aborted on that event, not after a time that a fast
    // read may beat.
    const go = goFiles(GO, 5000);
    const files = [...go, ...go];
    const ac = new AbortController();
    let aborted = 0;
    const onprogress = (p) => {
      if (aborted === 0 && p.progress < p.total) {
        aborted = Date.now();
        ac.abort('enough');
      }
    };
    await assert.rejects(read(s.client, { paths: files, limit: 1, budget: { tokens: 100000000 } },
                               { signal: ac.signal, onprogress }));
    assert.ok(aborted > 0, 'aborted at a progress before the last');
    assert.ok(Date.now() - aborted < 2000, 'rejected at once');
    // Whatever comes next is answered, and nothing arrives for the cancelled id.
    const r = await read(s.client, { paths: ['hello.txt', files[0]] });
    assert.equal(r.content.length, 2);
    assertMatchesDisk(contentOf(r.content[1].text), files[0]);
    await new Promise((res) => setTimeout(res, 300));
    assert.deepEqual(s.errors.map(String), [], 'no response for the cancelled request');
  });

  test('progress: increasing progress of the files read, with total', async () => {
    const files = goFiles(GO, 5000);
    const seen = [];
    // A budget that takes every file: under the default 25,000 tokens most would be counted in
    // one <Omitted> summary instead of a block each.
    const r = await read(s.client, { paths: files, limit: 1, budget: { tokens: 100000000 } }, { onprogress: (p) => seen.push(p) });
    assert.equal(r.content.length, files.length);
    assert.ok(seen.length >= 1, 'at least the final notification');
    for (let i = 0; i < seen.length; i++) {
      assert.equal(seen[i].total, files.length);
      assert.ok(seen[i].progress >= 0 && seen[i].progress <= files.length);
      if (i > 0) assert.ok(seen[i].progress > seen[i - 1].progress, `progress increases: ${JSON.stringify(seen)}`);
      if ('message' in seen[i]) assert.equal(typeof seen[i].message, 'string');
    }
    assert.equal(seen.at(-1).progress, files.length, 'the last says every file');
  });

  test('concurrent: 50 calls at once, each answered with its own files', async () => {
    const files = goFiles(GO, 500);
    const calls = [];
    for (let i = 0; i < 50; i++) {
      const mine = files.slice(i * 10, i * 10 + 10);
      // A budget out of the way: this is about answers reaching their own calls.
      calls.push(read(s.client, { paths: [...mine, `missing-${i}.txt`], budget: { tokens: 1000000 } }).then((r) => ({ mine, r })));
    }
    for (const { mine, r } of await Promise.all(calls)) {
      assert.equal(r.isError, false);
      assert.equal(r.content.length, mine.length + 1, r.content.map((b) => b.text.slice(0, 200)).join("\n"));
      mine.forEach((f, k) => {
        const c = contentOf(r.content[k].text);
        assert.equal(c.attrs.path, f);
        assert.equal(Number(c.attrs.bytes), fs.statSync(f).size);
      });
      assert.equal(contentOf(r.content[mine.length].text).attrs.code, 'FILE_NOT_FOUND');
    }
  });
});

describe('fence', () => {
  test('fence_root: --root keeps reads inside; default and added excludes', async () => {
    const s = await connect({ args: ['--root', tmp, '--exclude', '*.log'], cwd: outside });
    try {
      const r = await read(s.client, { paths: ['hello.txt', path.join(tmp, 'hello.txt'), path.join(outside, 'secret.txt'),
        '../' + path.basename(outside) + '/secret.txt', 'link-out.txt', '.env', 'server.pem', 'build.log', path.join(GO, 'fmt', 'print.go')] });
      assert.equal(r.isError, false);
      const c = r.content.map((x) => contentOf(x.text));
      assert.equal(c.length, 9);
      assertMatchesDisk(c[0], path.join(tmp, 'hello.txt'));
      assertMatchesDisk(c[1], path.join(tmp, 'hello.txt'));
      for (const k of [2, 3, 4, 5, 6, 7, 8]) {
        assert.equal(c[k].attrs.code, 'ACCESS_DENIED', `${c[k].attrs.path} is refused`);
        assert.equal(c[k].body, '', 'nothing of it is shown');
      }
      assert.doesNotMatch(r.content.map((x) => x.text).join(''), /do-not-read|outside the workspace\n/);
    } finally {
      await s.close();
    }
  });

  test('fence_no_default_excludes: .env is read', async () => {
    const s = await connect({ args: ['--root', tmp, '--no-default-excludes'] });
    try {
      const c = onlyContent(await read(s.client, { paths: ['.env'] }));
      assertMatchesDisk(c, path.join(tmp, '.env'));
    } finally {
      await s.close();
    }
  });

  test('fence_cwd: without --root or roots, the working directory', async () => {
    const s = await connect({ cwd: tmp });
    try {
      const r = await read(s.client, { paths: ['hello.txt', path.join(outside, 'secret.txt'), '.env'] });
      const c = r.content.map((x) => contentOf(x.text));
      assert.equal(c[0].attrs.type, 'text');
      assert.equal(c[1].attrs.code, 'ACCESS_DENIED');
      assert.equal(c[2].attrs.code, 'ACCESS_DENIED');
    } finally {
      await s.close();
    }
  });

  test('fence_roots: the client\'s roots, asked again on roots/list_changed', async () => {
    let roots = [{ uri: pathToFileURL(tmp).href, name: 'workspace' }];
    let asked = 0;
    let wake;
    const s = await connect({
      cwd: outside, // the cwd fence would allow the files outside: the roots must replace it
      capabilities: { roots: { listChanged: true } },
      onRootsList: async () => { asked++; setTimeout(wake, 100); return { roots }; },
    });
    try {
      await within(new Promise((res) => { wake = res; if (asked) setTimeout(res, 100); }), 5000, 'roots/list');
      assert.equal(asked, 1, 'roots/list asked once after initialized');
      let r = await read(s.client, { paths: [path.join(tmp, 'hello.txt'), path.join(outside, 'secret.txt'), 'hello.txt'] });
      let c = r.content.map((x) => contentOf(x.text));
      assertMatchesDisk(c[0], path.join(tmp, 'hello.txt'));
      assert.equal(c[1].attrs.code, 'ACCESS_DENIED');
      assertMatchesDisk(c[2], path.join(tmp, 'hello.txt')); // relative to the first root

      roots = [{ uri: pathToFileURL(outside).href, name: 'other' }];
      const again = new Promise((res) => { wake = res; });
      await s.client.sendRootsListChanged();
      await within(again, 5000, 'roots/list after roots/list_changed');
      assert.equal(asked, 2, 'roots/list asked again');
      r = await read(s.client, { paths: [path.join(tmp, 'hello.txt'), path.join(outside, 'secret.txt')] });
      c = r.content.map((x) => contentOf(x.text));
      assert.equal(c[0].attrs.code, 'ACCESS_DENIED');
      assertMatchesDisk(c[1], path.join(outside, 'secret.txt'));
    } finally {
      await s.close();
    }
  });
});

describe('fence (roots answered late)', () => {
  test('fence_roots_wait: a call made before roots/list is answered meets the client\'s roots', async () => {
    let asked = 0;
    const s = await connect({
      cwd: outside,
      capabilities: { roots: { listChanged: true } },
      onRootsList: async () => {
        asked++;
        await new Promise((res) => setTimeout(res, 300));
        return { roots: [{ uri: pathToFileURL(tmp).href }] };
      },
    });
    try {
      const r = await within(read(s.client, { paths: [path.join(tmp, 'hello.txt'), path.join(outside, 'secret.txt')] }), 5000, 'answer');
      const c = r.content.map((x) => contentOf(x.text));
      assert.equal(asked, 1);
      assertMatchesDisk(c[0], path.join(tmp, 'hello.txt'));
      assert.equal(c[1].attrs.code, 'ACCESS_DENIED');
    } finally {
      await s.close();
    }
  });
});

describe('fence (bad roots)', () => {
  test('fence_bad_root_flag: a --root that is not a folder stops the server (exit 2), never widens the fence', () => {
    const r = spawnSync(READERD, ['mcp', '--root', path.join(tmp, 'no-such-folder')], { cwd: tmp, input: '', encoding: 'utf8' });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--root .*no-such-folder is not a folder/);
  });

  // The warnings come as notifications/message before the call's answer (the fence is built
  // before any read starts), so the test waits on the answer, never on stderr.
  test('fence_bad_client_roots: roots that are not folders are left out; with none left, every call is a tool error saying why', async () => {
    const s = await connect({
      cwd: tmp, // the cwd fence would allow hello.txt: the client's roots must replace it
      capabilities: { roots: { listChanged: false } },
      onRootsList: async () => ({ roots: [{ uri: pathToFileURL(path.join(tmp, 'no-such-folder')).href }] }),
    });
    const messages = [];
    s.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { messages.push(n.params); });
    try {
      const r = await within(read(s.client, { paths: [path.join(tmp, 'hello.txt'), 'hello.txt'] }), 5000, 'answer');
      assert.equal(r.isError, true);
      assert.match(r.content[0].text, /No file can be read: no root is a folder/);
      assert.ok(messages.some((m) => m.level === 'warning' && /no-such-folder is not a folder/.test(m.data)),
        JSON.stringify(messages));
      const info = await s.client.callTool({ name: 'workspace_info', arguments: {} });
      assert.equal(info.isError, false);
      assert.match(info.content[0].text, /No folder may be read/);
    } finally {
      await s.close();
    }
  });

  // One root readerd cannot take must not widen the fence to the working directory: started in
  // "/", as Cline starts its servers, /etc/passwd stays unread.
  test('fence_unusable_client_roots: an unusable root is left out alone; none usable reads nothing', async () => {
    const unusable = [
      { uri: 'https://example.com/repo' },
      { uri: 'vscode-remote://ssh-remote+box/home/me' },
      { uri: 'file://otherhost/srv/x' },
      { name: 'no uri' },
      { uri: 'file:///tmp/a%00b' },
    ];
    for (const extra of unusable) {
      const s = await connect({
        cwd: '/',
        capabilities: { roots: { listChanged: false } },
        onRootsList: async () => ({ roots: [{ uri: pathToFileURL(tmp).href }, extra] }),
      });
      try {
        const r = await within(read(s.client, { paths: ['/etc/passwd', path.join(tmp, 'hello.txt')] }), 5000, 'answer');
        const c = r.content.map((x) => contentOf(x.text));
        assert.equal(c[0].attrs.code, 'ACCESS_DENIED', JSON.stringify(extra));
        assertMatchesDisk(c[1], path.join(tmp, 'hello.txt'));
        await s.logged(/roots\[1\] is left out/);
      } finally {
        await s.close();
      }
    }
    const s = await connect({
      cwd: '/',
      capabilities: { roots: { listChanged: false } },
      onRootsList: async () => ({ roots: unusable }),
    });
    try {
      const r = await within(read(s.client, { paths: ['/etc/passwd'] }), 5000, 'answer');
      assert.equal(r.isError, true, JSON.stringify(r));
      assert.match(r.content[0].text, /No file can be read/);
      assert.doesNotMatch(r.content[0].text, /root:/);
      await s.logged(/roots\[4\] is left out/);
    } finally {
      await s.close();
    }
  });

  for (const [name, answer, why] of [['empty', { roots: [] }, /the client listed no roots/],
    ['unusable', { roots: [{ uri: 'https://example.com/x' }] }, /roots\/list answer names no local folder \(roots\[0\] is left out: /]]) {
    test(`fence_roots_${name}: an ${name} roots answer is a tool error saying so`, async () => {
      const s = await connect({
        cwd: tmp,
        capabilities: { roots: { listChanged: false } },
        onRootsList: async () => answer,
      });
      try {
        const r = await within(read(s.client, { paths: ['hello.txt'] }), 5000, 'answer');
        assert.equal(r.isError, true);
        assert.match(r.content[0].text, why);
        assert.match(r.content[0].text, /--root/);
      } finally {
        await s.close();
      }
    });
  }

  test('fence_cwd_gone: a working directory removed before the server starts fences in no folder, never "/"; calls say why', async () => {
    const gone = fs.mkdtempSync(path.join(os.tmpdir(), 'readerd-mcp-gone-'));
    const s = await connect({ cwd: gone, shell: `rmdir '${gone}'` });
    try {
      assert.equal(fs.existsSync(gone), false);
      const r = await within(read(s.client, { paths: [path.join(tmp, 'hello.txt'), '/etc/hostname'] }), 5000, 'answer');
      assert.equal(r.isError, true);
      assert.equal(r.content.length, 1);
      assert.match(r.content[0].text, /No file can be read: the working directory is gone/);
    } finally {
      await s.close();
    }
  });

  test('fence_roots_unanswered: a client that never answers roots/list gets its reads after 5 s, in the first fence', async () => {
    const s = await connect({
      cwd: tmp,
      capabilities: { roots: { listChanged: false } },
      onRootsList: () => new Promise(() => {}), // never answers
    });
    try {
      const t0 = Date.now();
      const c = onlyContent(await within(read(s.client, { paths: ['hello.txt'] }), 15000, 'answer'));
      assert.ok(Date.now() - t0 >= 4000, 'the read waited for the roots');
      assertMatchesDisk(c, path.join(tmp, 'hello.txt'));
      assert.match(s.log(), /did not answer roots\/list/);
    } finally {
      await s.close();
    }
  });
});

describe('limits', () => {
  test('answer_cap: a call answers at most 8 MiB of content, so every MCP client can take it; the rest in one summary', async () => {
    const big = path.join(tmp, 'full.txt');
    fs.writeFileSync(big, Array.from({ length: 2000 }, (_, i) => `${String(i).padStart(4, '0')} the quick brown fox jumps over the lazy dog once more`).join('\n') + '\n');
    const s = await connect({ args: ['--root', tmp] });
    try {
      // A budget past the default (25,000 tokens), which would stop the call long before.
      const r = await read(s.client, { paths: Array(200).fill('full.txt'), budget: { tokens: 100000000 } });
      // The files past the cap are summed up in one last block naming the skip that reads
      // them, not given a block each.
      const last = r.content[r.content.length - 1].text;
      const c = r.content.slice(0, -1).map((x) => contentOf(x.text));
      const first = c.length;
      assert.ok(first > 10 && first < 200, `the cap cut at ${first}`);
      assert.ok(c.every((x) => !x.attrs.code), 'no file before the cap is refused');
      assert.match(last, new RegExp(`^<Omitted files='${200 - first}' [^>]*first='full.txt' skip='${first}'>`));
      assert.match(last, /past the answer's cap of 8 MiB of content/);
      assert.ok(JSON.stringify(r).length < 10 << 20, 'the answer fits the SDK default buffer');
    } finally {
      await s.close();
    }
  });
});

describe('inspector', () => {
  const INSPECTOR = path.join(HERE, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build');
  // The inspector CLI looks for its package.json relative to the working directory: it is run
  // from its own build folder.
  function inspector(...args) {
    const p = spawnSync(process.execPath, [path.join(INSPECTOR, 'index.js'), READERD, 'mcp', '--root', tmp, ...args],
      { cwd: INSPECTOR, encoding: 'utf8', timeout: 30000 });
    assert.equal(p.status, 0, p.stderr);
    return JSON.parse(p.stdout);
  }

  test('inspector_cli: tools/list and tools/call through the MCP Inspector', { skip: !fs.existsSync(INSPECTOR) && 'SKIP: @modelcontextprotocol/inspector-cli is not installed' }, () => {
    const list = inspector('--method', 'tools/list');
    assert.deepEqual(list.tools.map((t) => t.name), TOOLS);
    const r = inspector('--method', 'tools/call', '--tool-name', 'read_files', '--tool-arg', 'paths=["hello.txt","missing.txt"]');
    assert.equal(r.isError, false);
    assertMatchesDisk(contentOf(r.content[0].text), path.join(tmp, 'hello.txt'));
    assert.equal(contentOf(r.content[1].text).attrs.code, 'FILE_NOT_FOUND');
  });
});
