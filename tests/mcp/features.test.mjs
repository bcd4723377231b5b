// `readerd mcp` as the clients of 2026 speak it: both protocol eras (the official TypeScript SDK
// v1 and v2 clients, and raw JSON-RPC lines), the tolerant arguments of read_files, logging,
// resources with completion, list_files and workspace_info, and the MCP Inspector CLI without
// --root. Run by tests/mcp/check.sh beside mcp.test.mjs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { contentOf, imageSize, realFile, sessionOf } from './lib.mjs';

const READERD = process.env.READERD;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const V2 = path.join(HERE, 'node_modules', '@modelcontextprotocol', 'client', 'package.json');
const PIXBUF = realFile(['/usr/libexec/installed-tests/gdk-pixbuf', '/usr/share/installed-tests/gdk-pixbuf'],
  'issue70.jpg');
const TASN1_PDF = '/usr/share/doc/libtasn1-doc/libtasn1.pdf';
const MODERN = '2026-07-28';
// The _meta every 2026-07-28 request carries.
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': { roots: {} },
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
};

let tmp;
before(() => {
  assert.ok(READERD, 'READERD names the readerd binary');
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'readerd-mcp2-'));
  fs.writeFileSync(path.join(tmp, 'hello.txt'), 'first line\nsecond line\nthird line\nfourth line\n');
  fs.writeFileSync(path.join(tmp, '.env'), 'API_KEY=do-not-read\n');
  fs.mkdirSync(path.join(tmp, 'src'));
  fs.writeFileSync(path.join(tmp, 'src', 'main.c'), 'int main(void) { return 0; }\n');
  fs.writeFileSync(path.join(tmp, 'src', 'domain.c'), 'int d;\n');
  fs.writeFileSync(path.join(tmp, 'src', 'ignored.c'), 'int i;\n');
  fs.writeFileSync(path.join(tmp, 'src', '.ignore'), 'ignored.c\n');
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function within(p, ms, what) {
  let timer;
  const late = new Promise((res, rej) => { timer = setTimeout(() => rej(new Error(`no ${what} within ${ms} ms`)), ms); });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

// A v1 SDK client on `readerd mcp ARGS` in tmp, with the notifications/message it gets.
async function connectV1(args = ['--root', tmp]) {
  const transport = new StdioClientTransport({ command: READERD, args: ['mcp', ...args], cwd: tmp, stderr: 'pipe' });
  let log = '';
  transport.stderr.on('data', (d) => { log += d; });
  const client = new Client({ name: 'readerd-features-test', version: '1.0.0' }, { capabilities: {} });
  const messages = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { messages.push(n.params); });
  await client.connect(transport);
  return { client, messages, log: () => log, close: () => client.close() };
}

async function closeRaw(s) {
  const { code, stdoutJunk, stderr } = await s.close();
  assert.doesNotMatch(stderr, /Sanitizer|runtime error:/, stderr);
  assert.equal(code, 0);
  assert.deepEqual(stdoutJunk, []);
}

describe('eras', () => {
  test('era_raw_2026: server/discover, _meta on every request, resultType, cache hints, -32022, no request of the server', async () => {
    const s = sessionOf(READERD, ['mcp', '--root', tmp], tmp);
    try {
      const d = (await s.call('server/discover', { _meta: META })).result;
      assert.deepEqual(d.supportedVersions, [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
      assert.equal(d.resultType, 'complete');
      assert.ok(Number.isInteger(d.ttlMs) && d.ttlMs >= 0);
      assert.ok(['public', 'private'].includes(d.cacheScope));
      for (const cap of ['tools', 'resources', 'completions', 'logging']) assert.ok(cap in d.capabilities, cap);
      assert.equal(d._meta['io.modelcontextprotocol/serverInfo'].name, 'readerd');
      assert.equal(typeof d.instructions, 'string');

      const list = (await s.call('tools/list', { _meta: META })).result;
      assert.equal(list.resultType, 'complete');
      assert.ok(Number.isInteger(list.ttlMs));
      assert.ok(['public', 'private'].includes(list.cacheScope));
      const call = (await s.call('tools/call', { name: 'read_files', arguments: { paths: ['hello.txt'] }, _meta: META })).result;
      assert.equal(call.resultType, 'complete');
      assert.equal(contentOf(call.content[0].text).attrs.lines, '4');
      const res = (await s.call('resources/read', { uri: pathToFileURL(path.join(tmp, 'hello.txt')).href, _meta: META })).result;
      assert.equal(res.resultType, 'complete');
      assert.equal(res.ttlMs, 0);
      assert.equal(res.cacheScope, 'private');

      const bad = await s.call('tools/list', { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } });
      assert.equal(bad.error.code, -32022);
      assert.ok(bad.error.data.supported.includes(MODERN));
      assert.equal(bad.error.data.requested, '2099-01-01');
      // The client offered roots, but a 2026-07-28 server sends no request of its own on stdio.
      assert.deepEqual(s.incoming.filter((m) => 'method' in m && 'id' in m), []);
    } finally {
      await closeRaw(s);
    }
  });

  test('era_probe_in_place: server/discover, then initialize on the same process (a client that falls back)', async () => {
    const s = sessionOf(READERD, ['mcp'], tmp);
    try {
      assert.equal((await s.call('server/discover', { _meta: META })).result.resultType, 'complete');
      const init = await s.call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } });
      assert.equal(init.result.protocolVersion, '2025-11-25');
      s.notify('notifications/initialized');
      const list = (await s.call('tools/list')).result;
      assert.equal(list.resultType, undefined);
      assert.deepEqual(list.tools.map((t) => t.name), ['read_files', 'list_files', 'workspace_info']);
    } finally {
      await closeRaw(s);
    }
  });

  test('era_raw_2026_roots: without --root, a client offering roots is asked for them in an input_required result', async () => {
    const s = sessionOf(READERD, ['mcp'], tmp); // the working directory would allow hello.txt
    try {
      const params = { name: 'read_files', arguments: { paths: ['main.c', path.join(tmp, 'hello.txt')] }, _meta: META };
      const ask = (await s.call('tools/call', params)).result;
      assert.deepEqual(ask, { resultType: 'input_required', inputRequests: { roots: { method: 'roots/list' } } });
      const r = (await s.call('tools/call', {
        ...params, inputResponses: { roots: { roots: [{ uri: pathToFileURL(path.join(tmp, 'src')).href }] } },
      })).result;
      assert.equal(r.resultType, 'complete');
      const c = r.content.map((x) => contentOf(x.text));
      assert.equal(c[0].attrs.type, 'text', 'relative to the first root');
      assert.equal(c[1].attrs.code, 'ACCESS_DENIED', 'outside the roots');
      // Kept: the next call is not asked again.
      const again = (await s.call('tools/call', { ...params, _meta: META })).result;
      assert.equal(again.resultType, 'complete');
      assert.deepEqual(s.incoming.filter((m) => 'method' in m && 'id' in m), []);
    } finally {
      await closeRaw(s);
    }
  });

  describe('sdk v2', { skip: !fs.existsSync(V2) && 'SKIP: @modelcontextprotocol/client is not installed' }, () => {
    let v2;
    let spawnsLog;
    let wrapper;
    before(async () => {
      if (!fs.existsSync(V2)) return;
      v2 = {
        ...(await import('@modelcontextprotocol/client')),
        ...(await import('@modelcontextprotocol/client/stdio')),
      };
      // Every readerd the client starts appends a line here: the processes it needed.
      spawnsLog = path.join(tmp, 'spawns.log');
      wrapper = path.join(tmp, 'readerd-counted.sh');
      fs.writeFileSync(wrapper, `#!/bin/sh\necho "$$" >> '${spawnsLog}'\nexec '${READERD}' mcp --root '${tmp}'\n`, { mode: 0o755 });
    });
    const spawns = () => fs.readFileSync(spawnsLog, 'utf8').split('\n').filter(Boolean).length;

    // Connects a v2 client in `mode` (undefined: its default) through the counting wrapper,
    // reads a file by tool and by resource, and says which revision was spoken and how many
    // processes were started.
    async function session(mode, Transport) {
      fs.writeFileSync(spawnsLog, '');
      const T = Transport ?? v2.StdioClientTransport;
      const transport = new T({ command: wrapper, args: [], cwd: tmp, stderr: 'pipe' });
      const client = new v2.Client({ name: 'readerd-v2-test', version: '1.0.0' },
        mode ? { versionNegotiation: { mode } } : {});
      await within(client.connect(transport), 20000, 'connect');
      try {
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name), ['read_files', 'list_files', 'workspace_info']);
        const r = await client.callTool({ name: 'read_files', arguments: { paths: ['hello.txt'] } });
        assert.equal(contentOf(r.content[0].text).attrs.lines, '4');
        const res = await client.readResource({ uri: pathToFileURL(path.join(tmp, 'hello.txt')).href });
        assert.match(res.contents[0].text, /^<Content path='[^']*hello.txt' type='text'/);
        return { version: client.getNegotiatedProtocolVersion(), spawns: spawns() };
      } finally {
        await client.close();
      }
    }

    test('sdk_v2_default: the default mode (initialize) speaks 2025-11-25 in one process', async () => {
      const r = await session(undefined);
      assert.equal(r.version, '2025-11-25');
      assert.equal(r.spawns, 1);
    });

    test('sdk_v2_pinned: pinned to 2026-07-28, the client connects, lists, reads a file and a resource', async () => {
      const r = await session({ pin: MODERN });
      assert.equal(r.version, MODERN);
    });

    test('sdk_v2_auto: auto mode finds 2026-07-28 and never falls back', async () => {
      const r = await session('auto');
      assert.equal(r.version, MODERN);
      // The SDK's own StdioClientTransport probes on a disposable sibling process by design,
      // whatever the server answers; nothing more is started for readerd.
      assert.ok(r.spawns <= 2, `${r.spawns} processes`);
    });

    test('sdk_v2_pinned_roots: without --root, the pinned client\'s roots (asked inside an answer) are the fence', async () => {
      const transport = new v2.StdioClientTransport({ command: READERD, args: ['mcp'], cwd: tmp, stderr: 'pipe' });
      const client = new v2.Client({ name: 'readerd-v2-test', version: '1.0.0' },
        { capabilities: { roots: {} }, versionNegotiation: { mode: { pin: MODERN } } });
      let asked = 0;
      client.setRequestHandler('roots/list', async () => { asked++; return { roots: [{ uri: pathToFileURL(path.join(tmp, 'src')).href }] }; });
      await within(client.connect(transport), 20000, 'connect');
      try {
        const r = await client.callTool({ name: 'read_files', arguments: { paths: ['main.c', path.join(tmp, 'hello.txt')] } });
        const c = r.content.map((x) => contentOf(x.text));
        assert.equal(c[0].attrs.type, 'text');
        assert.equal(c[1].attrs.code, 'ACCESS_DENIED');
        assert.equal(asked, 1);
        await client.callTool({ name: 'read_files', arguments: { paths: ['main.c'] } });
        assert.equal(asked, 1, 'asked once');
      } finally {
        await client.close();
      }
    });

    test('sdk_v2_auto_in_place: a transport that probes in place needs one readerd process', async () => {
      // A subclass of the SDK's transport is probed in place (the SDK clones only its own class).
      class InPlace extends v2.StdioClientTransport {}
      const r = await session('auto', InPlace);
      assert.equal(r.version, MODERN);
      assert.equal(r.spawns, 1);
    });
  });
});

describe('tolerant arguments', () => {
  let s;
  before(async () => { s = await connectV1(); });
  after(async () => { await s.close(); });
  const read = (args) => s.client.callTool({ name: 'read_files', arguments: args });

  for (const [name, args, shown] of [
    ['path', { path: 'hello.txt' }, '1-4'],
    ['file_path', { file_path: 'hello.txt' }, '1-4'],
    ['start_line_end_line', { path: 'hello.txt', start_line: 2, end_line: 3 }, '2-3'],
    ['offset_0', { paths: ['hello.txt'], offset: 0, limit: 1 }, '1-1'],
    ['pages_empty', { paths: ['hello.txt'], pages: '' }, '1-4'],
    ['item_offset_0', { paths: [{ path: 'hello.txt', offset: 0, end_line: 2 }] }, '1-2'],
  ]) {
    test(`tolerant_${name}: read as what it means`, async () => {
      const r = await read(args);
      assert.equal(r.isError, false, JSON.stringify(r));
      assert.equal(contentOf(r.content[0].text).attrs.shown, shown);
    });
  }
});

describe('logging', () => {
  test('logging_set_level: warnings reach the client as notifications/message at their level', async () => {
    const s = await connectV1();
    try {
      assert.deepEqual(s.client.getServerCapabilities().logging, {});
      await s.client.setLoggingLevel('info');
      let r = await s.client.callTool({ name: 'read_files', arguments: { paths: ['.env', 'hello.txt'] } });
      assert.equal(contentOf(r.content[0].text).attrs.code, 'ACCESS_DENIED');
      // The message comes before the answer on the same stream: no waiting needed.
      assert.equal(s.messages.length, 1, JSON.stringify(s.messages));
      assert.equal(s.messages[0].level, 'warning');
      assert.equal(s.messages[0].logger, 'readerd');
      assert.match(s.messages[0].data, /1 file refused by the exclude patterns \(.*\.env.*\), first \.env/);
      // Two refused, counted once each; a file that quotes the message is not one of them.
      fs.writeFileSync(path.join(tmp, 'quote.txt'), "error='excluded by the workspace&apos;s exclude patterns'\n");
      fs.writeFileSync(path.join(tmp, 'server.key'), 'k\n');
      r = await s.client.callTool({ name: 'read_files', arguments: { paths: ['quote.txt', '.env', 'server.key'] } });
      assert.equal(contentOf(r.content[0].text).attrs.type, 'text');
      assert.equal(s.messages.length, 2, JSON.stringify(s.messages));
      assert.match(s.messages[1].data, /^2 files refused by the exclude patterns \(.*\), first \.env$/);
      await s.client.setLoggingLevel('error');
      r = await s.client.callTool({ name: 'read_files', arguments: { paths: ['.env'] } });
      assert.equal(contentOf(r.content[0].text).attrs.code, 'ACCESS_DENIED');
      assert.equal(s.messages.length, 2, 'a warning is below error');
      await assert.rejects(s.client.request({ method: 'logging/setLevel', params: { level: 'loud' } },
        (await import('@modelcontextprotocol/sdk/types.js')).EmptyResultSchema), /level must be one of/);
    } finally {
      await s.close();
    }
  });
});

describe('resources', () => {
  let s;
  const DATA = path.join(HERE, '..', 'data');
  const roots = [tmp, PIXBUF && path.dirname(PIXBUF), fs.existsSync(TASN1_PDF) && path.dirname(TASN1_PDF), DATA].filter(Boolean);
  before(async () => { s = await connectV1(roots.flatMap((r) => ['--root', r])); });
  after(async () => { await s.close(); });

  test('resources_list: the roots, as folders', async () => {
    const { resources } = await s.client.listResources();
    assert.deepEqual(resources.map((r) => r.uri), roots.map((r) => pathToFileURL(fs.realpathSync(r)).href + '/'));
    const { resourceTemplates } = await s.client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), ['file:///{+path}']);
  });

  test('resources_read_text: numbered lines, as read_files gives them', async () => {
    const uri = pathToFileURL(path.join(tmp, 'hello.txt')).href;
    const { contents } = await s.client.readResource({ uri });
    assert.equal(contents.length, 1);
    assert.equal(contents[0].uri, uri);
    const c = contentOf(contents[0].text);
    assert.deepEqual(c.lines, ['     1\tfirst line', '     2\tsecond line', '     3\tthird line', '     4\tfourth line']);
  });

  test('resources_read_fence: outside the fence and excluded files are refused', async () => {
    for (const f of ['/etc/hostname', path.join(tmp, '.env')]) {
      const { contents } = await s.client.readResource({ uri: pathToFileURL(f).href });
      assert.equal(contentOf(contents[0].text).attrs.code, 'ACCESS_DENIED', f);
    }
  });

  test('resources_read_image: the picture as image data (blob)', { skip: !PIXBUF && 'SKIP: gdk-pixbuf-tests is not installed' }, async () => {
    const { contents } = await s.client.readResource({ uri: pathToFileURL(PIXBUF).href });
    assert.equal(contentOf(contents[0].text).attrs.type, 'image');
    const blob = contents.find((x) => 'blob' in x);
    const size = imageSize(Buffer.from(blob.blob, 'base64'));
    assert.equal(blob.mimeType, size.mimeType);
  });

  test('resources_read_pdf: pages as text', { skip: !fs.existsSync(TASN1_PDF) && 'SKIP: libtasn1-doc is not installed' }, async () => {
    const { contents } = await s.client.readResource({ uri: pathToFileURL(TASN1_PDF).href });
    assert.match(contents[0].text, /<Page number='1'/);
  });

  test('resources_read_documents: a notebook and an office document read as read_files reads them', async () => {
    for (const [file, type, line] of [['notebook/analysis.ipynb', 'notebook', /<Cell index='2' kind='code' language='python'>/], ['office/report.docx', 'document', /# Quarterly report/]]) {
      const { contents } = await s.client.readResource({ uri: pathToFileURL(path.join(DATA, file)).href });
      const c = contentOf(contents[0].text);
      assert.equal(c.attrs.type, type, contents[0].text.slice(0, 300));
      assert.match(c.body, line);
    }
  });

  test('resources_read_folder: a folder lists what it holds, ignore rules kept', async () => {
    const { contents } = await s.client.readResource({ uri: pathToFileURL(path.join(tmp, 'src')).href + '/' });
    const names = contents.map((x) => path.basename(contentOf(x.text).attrs.path ?? ''));
    assert.ok(names.includes('main.c') && names.includes('domain.c'), names.join());
    assert.ok(!names.includes('ignored.c'), names.join());
    assert.ok(contents.every((x) => !x.text.includes('<![CDATA[     1')), 'no content, only the plan');
  });

  test('completion_path: paths under the fence, ranked, ignore rules and excludes kept, capped', async () => {
    const complete = async (value) => (await s.client.complete({
      ref: { type: 'ref/resource', uri: 'file:///{+path}' }, argument: { name: 'path', value },
    })).completion;
    const real = fs.realpathSync(tmp).slice(1);
    let c = await complete('src/ma');
    assert.equal(c.values[0], `${real}/src/main.c`);
    c = await complete('.c');
    assert.ok(c.values.includes(`${real}/src/domain.c`));
    assert.ok(!c.values.some((v) => v.endsWith('ignored.c')), 'ignored by .ignore');
    c = await complete('env');
    assert.ok(!c.values.some((v) => v.endsWith('/.env')), 'excluded');
    c = await complete('');
    assert.ok(c.values.length <= 100);
  });
});

describe('read-side tools', () => {
  let s;
  before(async () => { s = await connectV1(); });
  after(async () => { await s.close(); });

  test('list_files: a folder with kinds, sizes, lines and token estimates, no content', async () => {
    const r = await s.client.callTool({ name: 'list_files', arguments: { path: 'src' } });
    assert.equal(r.isError, false);
    const c = r.content.map((x) => contentOf(x.text));
    assert.deepEqual(c.map((x) => x.attrs.path), ['src/.ignore', 'src/domain.c', 'src/main.c']);
    for (const x of c.slice(1)) {
      assert.equal(x.attrs.type, 'text');
      assert.equal(Number(x.attrs.bytes), fs.statSync(path.join(tmp, x.attrs.path)).size);
      assert.equal(x.attrs.lines, '1');
      assert.ok(Number(x.attrs.tokensTotal) > 0);
      assert.equal(x.body, '');
    }
    const all = await s.client.callTool({ name: 'list_files', arguments: { path: 'src/*.c', ignored: true } });
    assert.equal(all.content.length, 3);
    const bad = await s.client.callTool({ name: 'list_files', arguments: { path: 'src', paths: ['x'] } });
    assert.equal(bad.isError, true);
  });

  test('workspace_info: the roots and the excludes, so that a refusal can be understood', async () => {
    const r = await s.client.callTool({ name: 'workspace_info', arguments: {} });
    assert.equal(r.isError, false);
    assert.ok(r.content[0].text.includes(fs.realpathSync(tmp)));
    assert.match(r.content[0].text, /--root/);
    assert.match(r.content[0].text, /\.env/);
  });
});

describe('inspector', () => {
  const INSPECTOR = path.join(HERE, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build');
  // Without --root, from the Inspector's own folder: the working directory is the fence.
  function inspector(...args) {
    const p = spawnSync(process.execPath, [path.join(INSPECTOR, 'index.js'), READERD, 'mcp', ...args],
      { cwd: INSPECTOR, encoding: 'utf8', timeout: 30000 });
    assert.equal(p.status, 0, p.stderr);
    return JSON.parse(p.stdout);
  }

  test('inspector_cli_no_root: the working directory as the fence, resources, logging', { skip: !fs.existsSync(INSPECTOR) && 'SKIP: @modelcontextprotocol/inspector-cli is not installed' }, () => {
    const r = inspector('--method', 'tools/call', '--tool-name', 'read_files', '--tool-arg', `paths=["index.js","${path.join(tmp, 'hello.txt')}"]`);
    assert.equal(contentOf(r.content[0].text).attrs.type, 'text');
    assert.equal(contentOf(r.content[1].text).attrs.code, 'ACCESS_DENIED');
    const info = inspector('--method', 'tools/call', '--tool-name', 'workspace_info');
    assert.ok(info.content[0].text.includes(fs.realpathSync(INSPECTOR)));
    assert.match(info.content[0].text, /working directory/);
    const t = inspector('--method', 'resources/templates/list');
    assert.equal(t.resourceTemplates[0].uriTemplate, 'file:///{+path}');
    const res = inspector('--method', 'resources/read', '--uri', pathToFileURL(path.join(INSPECTOR, 'index.js')).href);
    assert.match(res.contents[0].text, /type='text'/);
    assert.deepEqual(inspector('--method', 'logging/setLevel', '--log-level', 'debug'), {});
  });
});
