// The read summary in words, against real reads of the real daemon: reasons as sentences, where a
// file was cut, when the summary is a warning; and what the quick pick offers.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ReaderdClient } from '../../src/client';
import { pickEntries } from '../../src/pickItems';
import { ReadResult } from '../../src/protocol';
import { choosePlanned, readSummary, summaryIsWarning } from '../../src/readPlan';
import { cutInWords, fileProblems, reasonInWords } from '../../src/summary';
import { makeWorkspace, readerdBinary, removeWorkspace } from './helpers';

let root: string;
let client: ReaderdClient;

before(async () => {
  root = makeWorkspace();
  fs.writeFileSync(path.join(root, '.env'), 'KEY=1\n');
  fs.writeFileSync(path.join(root, 'big.log'), Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  client = await ReaderdClient.spawn(readerdBinary());
  await client.initialize({ rootPath: root, confineToRoot: true, exclude: ['.env'] });
});

after(async () => {
  await client.shutdown();
  removeWorkspace(root);
});

test('summary_reasons_in_words_never_bare_codes', async () => {
  const read = (await client.read({ paths: ['.env', '/etc/hostname', 'gone.txt', 'src', 'a.txt'] })) as ReadResult;
  const reasons = read.files.map((f) => reasonInWords(f));
  assert.deepEqual(reasons, [
    'excluded by readerd.exclude',
    'outside the workspace folder (readerd.confineToWorkspace)',
    'no such file',
    'it is a folder',
    undefined,
  ]);
  for (const r of reasons) {
    assert.doesNotMatch(r ?? '', /[A-Z]{3,}_[A-Z]+/, 'no code in the words');
  }
});

test('summary_names_the_cut_and_the_refused_as_a_warning', async () => {
  const asked = ['a.txt', 'big.log', '.env'];
  const plan = (await client.read({ paths: asked, plan: true })) as ReadResult;
  const planned = choosePlanned(plan, new Set(), () => false);
  const read = (await client.read({ paths: planned.paths, limit: 817 })) as ReadResult;
  assert.equal(cutInWords(read.files[1]!), 'cut at line 817 of 5,000');
  assert.deepEqual(fileProblems(read), { failed: ['.env refused: excluded by readerd.exclude'], cut: ['big.log cut at line 817 of 5,000'] });
  const summary = readSummary(read, planned);
  assert.match(summary, /^readerd: read 2 of 3 files \([\d,]+ lines, .*\); big\.log cut at line 817 of 5,000; \.env refused: excluded by readerd\.exclude$/);
  assert.equal(summaryIsWarning(read, planned), true);
  const whole = (await client.read({ paths: ['a.txt'] })) as ReadResult;
  assert.equal(summaryIsWarning(whole, choosePlanned(whole, new Set(), () => false)), false, 'all read whole: not a warning');
});

test('summary_offset_window_says_which_lines', async () => {
  const read = (await client.read({ paths: [{ path: 'big.log', offset: 101, limit: 10 }] })) as ReadResult;
  assert.equal(cutInWords(read.files[0]!), 'lines 101-110 of 5,000 shown');
});

test('pickItems_folders_and_excluded_files', () => {
  const entries = pickEntries([
    { rel: 'src/net/a.c', excluded: false },
    { rel: 'src/main.c', excluded: false },
    { rel: '.env', excluded: true },
    { rel: 'config/.env.local', excluded: true },
    { rel: 'README.md', excluded: false },
  ]);
  assert.deepEqual(entries.files, ['README.md', 'src/main.c', 'src/net/a.c']);
  assert.deepEqual(entries.folders, [{ rel: 'src', files: 2 }, { rel: 'src/net', files: 1 }]);
  assert.deepEqual(entries.excluded, ['.env', 'config/.env.local']);
});
