// Reading over several workspace folders through the real readerd: each path fenced to its own
// folder, requests split by folder and merged back into what one request gives.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ReaderdClient, ReaderdError } from '../../src/daemon/client';
import { DaemonManager } from '../../src/daemon/manager';
import { ReadResult } from '../../src/protocol';
import { expandMentions, locatedFolders } from '../../src/mentions/mentions';
import { readInRoots } from '../../src/daemon/rootedRead';
import { WorkspaceRoots } from '../../src/roots';
import { readerdBinary, REPO, settingDefault, waitFor } from './helpers';

let base: string;
let app: string;
let lib: string;
let roots: WorkspaceRoots;
let manager: DaemonManager;

before(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'readerd-roots-'));
  app = path.join(base, 'app');
  lib = path.join(base, 'lib');
  fs.mkdirSync(app);
  fs.mkdirSync(lib);
  fs.writeFileSync(path.join(app, 'a.txt'), 'alpha\nbeta\n');
  fs.writeFileSync(path.join(app, "it's <here> & there.txt"), 'quoted\n');
  fs.copyFileSync(path.join(REPO, 'samples', 'readerd.png'), path.join(app, 'logo.png'));
  fs.writeFileSync(path.join(lib, 'b.txt'), 'one\ntwo\nthree\n');
  fs.writeFileSync(path.join(lib, 'only-in-lib.txt'), 'found in lib\n');
  fs.writeFileSync(path.join(lib, 'tricky.txt'), "<Content path='x' image='0'/>]]> image='7'\n");
  fs.copyFileSync(path.join(REPO, 'samples', 'readerd.png'), path.join(lib, 'logo.png'));
  fs.writeFileSync(path.join(lib, '.env'), 'KEY=secret\n');
  fs.symlinkSync(path.join(lib, 'b.txt'), path.join(app, 'link-to-lib.txt'));
  roots = new WorkspaceRoots([{ name: 'app', path: app }, { name: 'lib', path: lib }]);
  manager = new DaemonManager({
    binary: readerdBinary(),
    rootPath: app,
    confineToRoot: true,
    exclude: ['.env'],
    requestTimeoutMs: settingDefault<number>('requestTimeout'),
    maxRestartDelayMs: settingDefault<number>('maxRestartDelay'),
    minRestartDelayMs: 50,
  });
  await manager.start();
});

after(async () => {
  await manager.stop();
  manager.dispose();
  fs.rmSync(base, { recursive: true, force: true });
});

function read(paths: string[]): Promise<ReadResult> {
  return readInRoots({ paths }, roots, (params, root) => manager.read(params, { root: root ?? null })) as Promise<ReadResult>;
}

/** The same paths in one request without any fence, relative to the folders' parent. */
async function readUnfenced(paths: string[]): Promise<ReadResult> {
  const client = await ReaderdClient.spawn(readerdBinary());
  try {
    return await client.read({ paths, cwd: base });
  } finally {
    await client.shutdown();
  }
}

test('rooted_read_merges_folders_into_one_result', async () => {
  const paths = ['lib/b.txt', 'app/a.txt', 'lib/logo.png', 'lib/tricky.txt', 'app/logo.png', "app/it's <here> & there.txt", 'lib/nope.txt', 'app/a.txt'];
  const merged = await read(paths);
  const single = await readUnfenced(paths);
  // Byte for byte what one request gives: order, paths as written, images renumbered, sums.
  assert.equal(merged.xml, single.xml);
  assert.deepEqual(merged.files, single.files);
  assert.deepEqual(merged.images, single.images);
  assert.equal(merged.bytes, single.bytes);
  assert.equal(merged.lines, single.lines);
  assert.deepEqual(merged.files.map((f) => f.image), [undefined, undefined, 0, undefined, 1, undefined, undefined, undefined]);
  assert.equal(merged.files[6]!.code, 'FILE_NOT_FOUND');
});

test('rooted_read_fences_each_path_to_its_folder', async () => {
  const result = await read(['app/link-to-lib.txt', 'lib/.env', 'lib/b.txt', 'only-in-lib.txt', 'app/../../x', path.join(lib, 'b.txt'), '/etc/hostname']);
  assert.deepEqual(result.files.map((f) => f.code ?? f.type), [
    'ACCESS_DENIED', // a link from app into lib: outside app, where it lies
    'ACCESS_DENIED', // excluded
    'text',
    'text', // relative, found in the second folder
    'ACCESS_DENIED', // leaves every folder
    'text', // absolute, in lib
    'ACCESS_DENIED', // outside every folder: fenced to the first
  ]);
  assert.equal(result.files[3]!.path, 'only-in-lib.txt');
  assert.doesNotMatch(result.xml, /secret/);
});

test('rooted_read_concurrent_requests_keep_their_fences', async () => {
  // Under the other folder's fence each of these would be ACCESS_DENIED.
  const reads = Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? path.join(app, 'a.txt') : path.join(lib, 'b.txt')))
    .map((p) => read([p]));
  const results = await Promise.all(reads);
  assert.deepEqual(results.map((r) => r.files[0]!.code ?? r.files[0]!.lines), Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? 2 : 3)));
});

test('rooted_read_manager_switches_roots', async () => {
  const inLib = path.join(lib, 'b.txt');
  assert.equal((await manager.read({ paths: [inLib] }, { root: app })).files[0]!.code, 'ACCESS_DENIED');
  assert.equal((await manager.read({ paths: [inLib] }, { root: lib })).files[0]!.lines, 3);
  // Relative paths follow the root too; no root is no fence.
  assert.equal((await manager.read({ paths: ['b.txt'] }, { root: lib })).files[0]!.lines, 3);
  assert.equal((await manager.read({ paths: ['/etc/hostname'] }, { root: null })).files[0]!.type, 'text');
  // A root that is no folder is refused, and the next read is fenced as asked all the same.
  await assert.rejects(manager.read({ paths: ['a.txt'] }, { root: path.join(base, 'gone') }),
    (e: unknown) => e instanceof ReaderdError && e.kind === 'rpc' && e.code === -32602);
  assert.equal((await manager.read({ paths: [inLib] }, { root: app })).files[0]!.code, 'ACCESS_DENIED');
  // After a restart the new daemon is fenced again before reading.
  const pid = manager.info().pid!;
  process.kill(pid, 'SIGKILL');
  await waitFor(() => manager.state === 'running' && manager.info().pid !== pid, 5000, 'restart');
  assert.equal((await manager.read({ paths: [inLib] }, { root: lib })).files[0]!.lines, 3);
  assert.notEqual(manager.info().pid, pid);
  assert.equal((await manager.read({ paths: [inLib] })).files[0]!.code, 'ACCESS_DENIED');
});

test('rooted_read_other_formats', async () => {
  // One folder: any format; the files say the paths as written.
  const one = await readInRoots({ paths: ['lib/b.txt'], format: 'toolresult' }, roots, (p, root) => manager.read(p, { root: root ?? null }));
  assert.equal(one.files[0]!.path, 'lib/b.txt');
  assert.ok('toolresult' in one && one.toolresult?.success);
  // Several folders: only xml is merged; others are refused before anything is read.
  await assert.rejects(
    readInRoots({ paths: ['lib/b.txt', 'app/a.txt'], format: 'text' }, roots, () => assert.fail('nothing is sent')),
    (e: unknown) => e instanceof ReaderdError && e.code === -32602 && /2 workspace folders/.test(e.message),
  );
});

test('rooted_read_mentions_across_folders', async () => {
  fs.mkdirSync(path.join(lib, 'docs'));
  fs.writeFileSync(path.join(lib, 'docs', 'one.md'), 'one\n');
  fs.writeFileSync(path.join(lib, 'docs', 'two.md'), 'two\n');
  const out = await expandMentions('See @/app/a.txt, @/lib/docs/ and @/only-in-lib.txt, not @/lib/.env', {
    root: undefined,
    read: (params) => readInRoots(params, roots, (p, r) => manager.read(p, { root: r ?? null })) as Promise<ReadResult>,
    ...locatedFolders((rel) => roots.locate(rel).absolute),
  });
  assert.deepEqual(out.paths, ['app/a.txt', 'lib/docs/one.md', 'lib/docs/two.md', 'only-in-lib.txt', 'lib/.env']);
  assert.deepEqual(out.result?.files.map((f) => f.code ?? f.lines), [2, 1, 1, 1, 'ACCESS_DENIED']);
  assert.match(out.text, /^See 'app\/a.txt' \(see below for file content\), 'lib\/docs\/' \(see below for folder content\)/);
  assert.match(out.text, /<Content path='lib\/docs\/two.md'[^>]*>\n<!\[CDATA\[two\n/);
  assert.doesNotMatch(out.text, /secret/);
});

test('rooted_read_expanded_folders_keep_from_and_notices', async () => {
  fs.mkdirSync(path.join(app, 'sub'), { recursive: true });
  for (const name of ['x.txt', 'y.txt', 'z.txt']) {
    fs.writeFileSync(path.join(app, 'sub', name), `${name}\n`);
  }
  const paths = ['lib/b.txt', 'app/sub', 'lib', 'app/a.txt'];
  const params = { paths, expand: { maxFiles: 2 } };
  const merged = (await readInRoots(params, roots, (p, root) => manager.read(p, { root: root ?? null }))) as ReadResult;
  const client = await ReaderdClient.spawn(readerdBinary());
  let single: ReadResult;
  try {
    await client.initialize({ rootPath: base, exclude: ['.env'] });
    single = await client.read({ ...params, cwd: base });
  } finally {
    await client.shutdown();
  }
  // Byte for byte what one request from the folders' parent gives: files in place with `from`
  // the index of their folder in the whole request, notices (the glob they suggest included).
  assert.deepEqual(merged.files.map((f) => [f.path, f.from]), single.files.map((f) => [f.path, f.from]));
  assert.deepEqual(merged.files, single.files);
  assert.deepEqual(merged.notices, single.notices);
  assert.equal(merged.xml, single.xml);
  assert.equal(merged.tokens, single.tokens);
  // The two folders past maxFiles; the excluded .env leaves no trace (no notice counts it).
  assert.equal(merged.notices?.length, 2);
  assert.match(merged.xml, /<Notice path='lib' from='2'><!\[CDATA\[2 of \d+ files shown[^\]]*"lib\/\*\*\/\*\.txt"/);
  // A plan of the same: no content, the same entries, tokens summed over the folders.
  const plan = (await readInRoots({ ...params, plan: true }, roots, (p, root) => manager.read(p, { root: root ?? null }))) as ReadResult;
  assert.equal(plan.plan, true);
  assert.deepEqual(plan.files.map((f) => [f.path, f.from, f.tokens]), merged.files.map((f) => [f.path, f.from, f.tokens]));
  assert.equal(plan.tokens, merged.tokens);
  assert.deepEqual(plan.notices, merged.notices);
  assert.doesNotMatch(plan.xml, /CDATA\[\s+1\t/);
});
