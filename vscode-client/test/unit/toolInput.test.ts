// The language-model tool's input: per-path offset, limit and pages, checked, and read by the real
// daemon as each path asks.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ReaderdClient } from '../../src/daemon/client';
import { ReadResult } from '../../src/protocol';
import { checkInput, toolPaths } from '../../src/chat/toolInput';
import { makeWorkspace, PACKAGE_JSON, readerdBinary, removeWorkspace } from './helpers';

let root: string;
let client: ReaderdClient;

before(async () => {
  root = makeWorkspace();
  fs.writeFileSync(path.join(root, 'long.txt'), Array.from({ length: 300 }, (_, i) => `row ${i + 1}`).join('\n') + '\n');
  client = await ReaderdClient.spawn(readerdBinary());
  await client.initialize({ rootPath: root });
});

after(async () => {
  await client.shutdown();
  removeWorkspace(root);
});

test('toolInput_each_path_its_own_window', async () => {
  const input = checkInput({ paths: [{ path: 'long.txt', offset: 100, limit: 2 }, 'a.txt', { path: 'long.txt', limit: 1 }], limit: 2 });
  const paths = toolPaths(input);
  assert.deepEqual(paths, [{ path: 'long.txt', offset: 100, limit: 2 }, 'a.txt', { path: 'long.txt', limit: 1 }]);
  const read = (await client.read({ paths, limit: input.limit })) as ReadResult;
  assert.deepEqual(read.files.map((f) => f.shown), [[100, 101], [1, 2], [1, 1]]);
  assert.match(read.xml, /row 100\n.*row 101\n/);
});

test('toolInput_top_level_pages_only_where_none_is_set', () => {
  const paths = toolPaths(checkInput({ paths: ['a.pdf', { path: 'b.pdf', pages: '3' }], pages: '1-2' }));
  assert.deepEqual(paths, [{ path: 'a.pdf', pages: '1-2' }, { path: 'b.pdf', pages: '3' }]);
});

test('toolInput_bad_items_say_which', () => {
  assert.throws(() => checkInput({ paths: [] }), /non-empty array/);
  assert.throws(() => checkInput({ paths: ['a', { path: 'b', offset: 0 }] }), /"paths\[1\]\.offset" must be an integer >= 1/);
  assert.throws(() => checkInput({ paths: [{ offset: 3 }] }), /"paths\[0\]" must be a path string or/);
  assert.throws(() => checkInput({ paths: ['a'], pages: 5 }), /"pages" must be a string/);
});

test('toolInput_schema_and_descriptions_in_package_json', () => {
  const tools = (PACKAGE_JSON.contributes as unknown as { languageModelTools: Array<Record<string, any>> }).languageModelTools;
  const tool = tools.find((t) => t.name === 'readerd_read_files')!;
  assert.ok(tool.userDescription.length > 40, 'a description a person sees in the # list');
  assert.match(tool.modelDescription, /\{path, offset, limit, pages\}/);
  const item = tool.inputSchema.properties.paths.items;
  assert.deepEqual(item.anyOf.map((a: { type: string }) => a.type), ['string', 'object']);
  assert.deepEqual(Object.keys(item.anyOf[1].properties), ['path', 'offset', 'limit', 'pages']);
});
