// The read command's plan through the real readerd: what is read of an expanded folder, when to
// ask, and what the question and the summary say; files.exclude as the Explorer applies it.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ReaderdClient } from '../../src/daemon/client';
import { filesExcludeMatcher } from '../../src/exclusion';
import { ReadResult } from '../../src/protocol';
import { choosePlanned, confirmationText, readSummary } from '../../src/commands/readPlan';
import { needsConfirmation } from '../../src/format';
import { makeWorkspace, readerdBinary, removeWorkspace } from './helpers';

let root: string;
let client: ReaderdClient;

before(async () => {
  root = makeWorkspace();
  fs.writeFileSync(path.join(root, 'docs', 'skip.tmp'), 'hidden by files.exclude\n');
  fs.writeFileSync(path.join(root, 'docs', 'blob.bin'), Buffer.from([0, 1, 2, 0, 3]));
  fs.mkdirSync(path.join(root, 'empty'));
  client = await ReaderdClient.spawn(readerdBinary());
  await client.initialize({ rootPath: root });
});

after(async () => {
  await client.shutdown();
  removeWorkspace(root);
});

test('files_exclude_matches_paths_and_their_folders', () => {
  const hidden = filesExcludeMatcher({ '**/*.tmp': true, '**/.vscode': true, 'build/': true, 'off/**': false, 'cond/*.js': { when: '$(basename).ts' } });
  assert.equal(hidden('docs/skip.tmp'), true);
  assert.equal(hidden('skip.tmp'), true);
  assert.equal(hidden('.vscode/settings.json'), true);
  assert.equal(hidden('build/out/x.c'), true);
  assert.equal(hidden('off/x.c'), false, 'a pattern set to false is off');
  assert.equal(hidden('cond/a.js'), false, 'a `when` condition is not evaluated');
  assert.equal(hidden('docs/notes.txt'), false);
  assert.equal(filesExcludeMatcher(undefined)('a.tmp'), false);
});

test('read_plan_chooses_expanded_files_and_asks_above_the_limit', async () => {
  const asked = ['a.txt', 'docs', 'empty', 'docs/notes.txt'];
  const plan = (await client.read({ paths: asked, expand: true, plan: true })) as ReadResult;
  assert.equal(plan.plan, true);
  const hide = filesExcludeMatcher({ '**/*.tmp': true });
  const planned = choosePlanned(plan, new Set([1, 2]), hide);
  // docs expanded recursively in byte order, skip.tmp hidden, blob.bin binary, empty/ gave
  // nothing, docs/notes.txt selected again read once.
  assert.deepEqual(planned.paths, ['a.txt', 'docs/deeper/hidden.txt', 'docs/my file.md', 'docs/notes.txt']);
  assert.equal(planned.hidden, 1);
  assert.equal(planned.binary, 1);
  assert.deepEqual(planned.empty.map((e) => [e.path, e.code]), [['empty', 'FILE_NOT_FOUND']]);
  const read = (await client.read({ paths: planned.paths })) as ReadResult;
  // The plan's tokens are those of the read.
  assert.equal(planned.tokens, read.tokens);
  assert.equal(planned.bytes, read.bytes);
  assert.equal(needsConfirmation(planned.tokens, 0), false, '0 never asks');
  assert.equal(needsConfirmation(planned.tokens, planned.tokens), false);
  assert.equal(needsConfirmation(planned.tokens, planned.tokens - 1), true);
  const { message, detail } = confirmationText(planned, 5);
  assert.equal(message, `readerd: read 4 files (${planned.bytes} B, about ${planned.tokens} tokens)?`);
  assert.match(detail, /^The plan passes readerd\.confirmAboveTokens \(5 tokens\)\.\nLargest:\n {2}/);
  const summary = readSummary(read, planned);
  assert.equal(summary, `readerd: read 4 of 4 files (${read.lines} lines, ${read.bytes} B, about ${read.tokens} tokens); left out: 1 hidden by files.exclude, 1 binary`);
});

test('read_plan_summary_says_the_notices', async () => {
  const plan = (await client.read({ paths: ['docs'], expand: { maxFiles: 2 }, plan: true })) as ReadResult;
  const planned = choosePlanned(plan, new Set([0]), () => false);
  assert.deepEqual(planned.paths, ['docs/deeper/hidden.txt'], 'docs/blob.bin, first in byte order, is binary');
  assert.equal(planned.notices.length, 1);
  const read = (await client.read({ paths: planned.paths })) as ReadResult;
  assert.match(readSummary(read, planned), /; docs: 2 of \d+ files shown: \d+ more left out past maxFiles \(2\)/);
});
