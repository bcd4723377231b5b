// protocol.ts against docs/protocol.md and the real readerd: every documented param of `read`
// and `initialize` is typed, and each one sent does what the documentation says.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ReaderdClient } from '../../src/daemon/client';
import { FormattedReadResult, ImageParams, InitializeParams, PathItem, ReadImagesParams, ReadParams, ReadResult } from '../../src/protocol';
import { makeWorkspace, readerdBinary, removeWorkspace, REPO } from './helpers';

const USER_GUIDE = '/usr/share/doc/python-reportlab-doc/reportlab-userguide.pdf';

// Every field set: the compiler checks that each exists in protocol.ts with the right type.
const EVERY_ITEM: Required<PathItem> = { path: 'guide.pdf', offset: 1, limit: 1, tail: 1, column: 1, pages: '2', render: true, password: 'pw', encoding: 'utf-8' };
const EVERY_IMAGES: Required<ImageParams> = { maxDimension: 64, maxTotalBytes: 1_000_000, detail: 'low', tile: 'auto' };
const EVERY_READ: Required<ReadParams> & { images: Required<ImageParams> } = {
  paths: ['a.txt', EVERY_ITEM],
  cwd: '/',
  offset: 1,
  limit: 1,
  lineNumbers: false,
  images: EVERY_IMAGES,
  format: 'openai',
  ifNoneMatch: {},
  tail: 1,
  expand: { maxFiles: 1, ignored: false, binary: false },
  budget: { tokens: 1 },
  plan: true,
  skip: 0,
  encoding: 'utf-8',
};
const EVERY_INITIALIZE: Required<InitializeParams> = {
  rootPath: '/', confineToRoot: true, exclude: ['.env'], clientInfo: { name: 'n', version: '1' },
  vision: { baseUrl: 'http://127.0.0.1:1/v1', model: 'm', apiKey: 'k', provider: 'openai' },
};
const EVERY_READ_IMAGES: Required<ReadImagesParams> = {
  paths: ['a.png'], query: 'q', cwd: '/', detail: 'low', pages: '1', maxTokens: 1, model: 'm', baseUrl: 'http://127.0.0.1:1/v1', provider: 'openai',
};

/** The params a `### heading` section of docs/protocol.md lists in its table, `images.x` flattened. */
function documentedParams(heading: string): string[] {
  const doc = fs.readFileSync(path.join(REPO, 'docs', 'protocol.md'), 'utf8');
  const start = doc.indexOf(`\n### ${heading}\n`);
  assert.ok(start >= 0, `docs/protocol.md has a "### ${heading}" section`);
  const section = doc.slice(start + 1, doc.indexOf('\n### ', start + 1));
  const names = [...section.matchAll(/^\| `([A-Za-z.]+)` \|/gm)].map((m) => m[1]!);
  assert.ok(names.length > 0, `the ${heading} section has a table of params`);
  return names;
}

function keysOf(value: object, prefix = ''): string[] {
  return Object.entries(value).flatMap(([k, v]) =>
    v && typeof v === 'object' && !Array.isArray(v) && (k === 'images' || k === 'budget') ? keysOf(v, `${k}.`) : [`${prefix}${k}`]);
}

test('protocol_read_params_match_the_documentation', () => {
  assert.deepEqual(keysOf(EVERY_READ).sort(), documentedParams('read').sort());
  // The items of `paths`: `{path, offset?, limit?, pages?, render?, password?}`.
  const doc = fs.readFileSync(path.join(REPO, 'docs', 'protocol.md'), 'utf8');
  const item = /each item a path string, or `\{([^}]*)\}`/.exec(doc);
  assert.ok(item, 'docs/protocol.md describes the items of paths');
  assert.deepEqual(Object.keys(EVERY_ITEM).sort(), item[1]!.split(',').map((s) => s.trim().replace(/\?$/, '')).sort());
});

test('protocol_read_images_params_match_the_documentation', () => {
  // `baseUrl` and `provider` share one row of the table.
  assert.deepEqual(Object.keys(EVERY_READ_IMAGES).filter((k) => k !== 'baseUrl' && k !== 'provider').sort(), documentedParams('readImages').sort());
  assert.match(fs.readFileSync(path.join(REPO, 'docs', 'protocol.md'), 'utf8'), /^\| `baseUrl`, `provider` \|/m);
});

test('protocol_initialize_params_match_the_documentation', () => {
  // clientInfo is shown in the example rather than the table.
  assert.deepEqual(Object.keys(EVERY_INITIALIZE).filter((k) => k !== 'clientInfo').sort(), documentedParams('initialize').sort());
});

let root: string;
let client: ReaderdClient;

before(async () => {
  root = makeWorkspace();
  client = await ReaderdClient.spawn(readerdBinary());
  await client.initialize({ rootPath: root, clientInfo: { name: 'protocol-test' } });
});

after(async () => {
  await client.shutdown();
  removeWorkspace(root);
});

test('protocol_read_window_numbers_and_images', async () => {
  const r = await client.read({ paths: ['a.txt', { path: 'a.txt', offset: 3, limit: 1 }, 'logo.png'], offset: 2, limit: 1, lineNumbers: false, images: { maxDimension: 16 } });
  assert.deepEqual(r.files.map((f) => f.shown), [[2, 2], [3, 3], undefined]);
  assert.match(r.xml, /<!\[CDATA\[beta\n/, 'no numbering');
  assert.equal(Math.max(r.images[0]!.width, r.images[0]!.height), 16);
  assert.equal(r.images[0]!.originalWidth, 48);
});

test('protocol_read_max_total_bytes', async () => {
  const r = await client.read({ paths: ['logo.png', 'a.txt'], images: { maxTotalBytes: 0 } });
  assert.deepEqual(r.files.map((f) => f.code ?? f.type), ['FILE_TOO_LARGE', 'text']);
  assert.equal(r.images.length, 0);
});

test('protocol_read_formats_and_image_detail', async () => {
  const openai: FormattedReadResult = await client.read({ paths: ['a.txt', 'logo.png'], format: 'openai', images: { detail: 'high' } });
  assert.ok(Array.isArray(openai.openai));
  assert.match(JSON.stringify(openai.openai), /"detail":"high"/);
  assert.deepEqual(openai.files.map((f) => f.type), ['text', 'image']);
  const tool = await client.read({ paths: ['a.txt', 'gone.txt'], format: 'toolresult' });
  assert.equal(tool.toolresult?.success, true);
  assert.match(tool.toolresult?.error ?? '', /gone\.txt: FILE_NOT_FOUND/);
  const text = await client.read({ paths: ['a.txt'], format: 'text' });
  assert.equal(typeof text.text, 'string');
  assert.match(text.text!, /alpha/);
  const anthropic = await client.read({ paths: ['a.txt'], format: 'anthropic' });
  assert.ok(Array.isArray(anthropic.anthropic));
  const xml: ReadResult = await client.read({ paths: ['a.txt'], format: 'xml' });
  assert.match(xml.xml, /^<ReadResults/);
});

test('protocol_read_pdf_items', async (t) => {
  if (!fs.existsSync(USER_GUIDE)) {
    t.skip(`${USER_GUIDE} is not installed (python-reportlab-doc)`);
    return;
  }
  fs.copyFileSync(USER_GUIDE, path.join(root, 'guide.pdf'));
  const r = await client.read({ paths: [{ path: 'guide.pdf', pages: '3', render: true }], images: { maxDimension: 200 } });
  assert.equal(r.files[0]!.type, 'pdf');
  assert.match(r.xml, /<Page number='3' image='0'>/);
  assert.equal(r.images[0]!.page, 3);
  assert.ok(r.files[0]!.title);
  let qpdf = true;
  try {
    execFileSync('qpdf', ['--encrypt', 'secret', 'owner', '256', '--', path.join(root, 'guide.pdf'), path.join(root, 'locked.pdf')]);
  } catch {
    qpdf = false;
  }
  if (qpdf) {
    const locked = await client.read({ paths: ['locked.pdf', { path: 'locked.pdf', pages: '1', password: 'secret' }, { path: 'locked.pdf', password: 'wrong' }] });
    assert.deepEqual(locked.files.map((f) => f.code ?? f.type), ['PASSWORD_PROTECTED', 'pdf', 'PASSWORD_PROTECTED']);
  }
});

test('protocol_read_svg_render_item', async () => {
  fs.writeFileSync(path.join(root, 'dot.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><circle cx="5" cy="5" r="4"/></svg>\n');
  const r = await client.read({ paths: ['dot.svg', { path: 'dot.svg', render: true }] });
  assert.equal(r.files[0]!.type, 'text');
  // Rendered when gdk-pixbuf's SVG loader is installed, refused clearly when not.
  assert.ok(r.files[1]!.type === 'image' || r.files[1]!.code === 'UNSUPPORTED_FORMAT', JSON.stringify(r.files[1]));
});

test('protocol_initialize_every_param', async () => {
  const fenced = await ReaderdClient.spawn(readerdBinary());
  try {
    fs.writeFileSync(path.join(root, '.env'), 'KEY=1\n');
    const init = await fenced.initialize({ rootPath: root, confineToRoot: true, exclude: ['.env'], clientInfo: { name: 'protocol-test', version: '1' } });
    assert.equal(init.serverInfo.name, 'readerd');
    assert.ok(init.capabilities.read?.formats?.includes('toolresult'));
    const r = await fenced.read({ paths: ['.env', '/etc/hostname', 'a.txt'] });
    assert.deepEqual(r.files.map((f) => f.code ?? f.type), ['ACCESS_DENIED', 'ACCESS_DENIED', 'text']);
  } finally {
    await fenced.shutdown();
  }
});
