// The read summary in words, against real reads of the real daemon: reasons as sentences, where a
// file was cut, when the summary is a warning; and what the quick pick offers.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ReaderdClient } from '../../src/daemon/client';
import { pickEntries } from '../../src/commands/pickItems';
import { ReadResult } from '../../src/protocol';
import { choosePlanned, readSummary, summaryIsWarning } from '../../src/commands/readPlan';
import { cutInWords, fileProblems, reasonInWords } from '../../src/summary';
import { branded, errorText } from '../../src/say';
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
  assert.equal(cutInWords(read.files[1]!), 'lines 1–817 of 5,000 shown');
  assert.deepEqual(fileProblems(read), { failed: ['.env refused: excluded by readerd.exclude'], cut: ['big.log: lines 1–817 of 5,000 shown'] });
  const summary = readSummary(read, planned);
  // The lines shown (a.txt's 3 and big.log's 817), not the files' lengths; no whole-file size for a cut read.
  assert.match(summary, /^readerd: read 2 of 3 files \(820 lines shown, about [\d,]+ tokens\); big\.log: lines 1–817 of 5,000 shown; \.env refused: excluded by readerd\.exclude$/);
  assert.equal(summaryIsWarning(read, planned), true);
  const whole = (await client.read({ paths: ['a.txt'] })) as ReadResult;
  assert.equal(summaryIsWarning(whole, choosePlanned(whole, new Set(), () => false)), false, 'all read whole: not a warning');
});

test('summary_offset_window_says_which_lines', async () => {
  const read = (await client.read({ paths: [{ path: 'big.log', offset: 101, limit: 10 }] })) as ReadResult;
  assert.equal(cutInWords(read.files[0]!), 'lines 101–110 of 5,000 shown');
  const one = (await client.read({ paths: [{ path: 'big.log', offset: 7, limit: 1 }] })) as ReadResult;
  assert.equal(cutInWords(one.files[0]!), 'line 7 of 5,000 shown');
  assert.match(readSummary(one, choosePlanned(one, new Set(), () => false)), /^readerd: read 1 of 1 file \(1 line shown, about \d+ tokens?\); big\.log: line 7 of 5,000 shown$/);
});

test('summary_pdf_pages_shown_of_how_many', () => {
  const pdf = { path: 'manual.pdf', type: 'pdf', pages: 134, truncated: true };
  assert.equal(cutInWords(pdf, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]), 'pages 1–20 of 134 shown');
  assert.equal(cutInWords(pdf, [1, 2, 3, 7]), 'pages 1–3, 7 of 134 shown');
});

test('say_one_readerd_prefix', () => {
  assert.equal(branded('readerd: readerd: stopped restarting'), 'readerd: stopped restarting');
  assert.equal(branded('no such file'), 'readerd: no such file');
  assert.equal(errorText(new Error('readerd: the daemon exited')), 'readerd: the daemon exited');
});

test('package_json_every_command_under_readerd_with_one_name_per_action', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
    contributes: { commands: Array<{ command: string; title: string; category?: string }> };
  };
  const titles = new Map<string, string>();
  for (const c of pkg.contributes.commands) {
    // Shown in the palette as "readerd: <title>": either through the category, or in the title
    // itself for the commands of context menus (where VS Code shows the title alone).
    const shown = c.category ? `${c.category}: ${c.title}` : c.title;
    assert.match(shown, /^readerd: [A-Z]/, c.command);
    assert.doesNotMatch(shown, /^readerd: readerd/, c.command);
    assert.ok(!titles.has(shown), `one command per name: ${shown}`);
    titles.set(shown, c.command);
  }
  assert.equal(titles.get('readerd: Copy as Prompt Context'), 'readerd.copyAsPromptContext');
  // The words the code shows for the action are the command's.
  const src = path.join(__dirname, '..', '..', '..', 'src');
  for (const file of fs.readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
    const text = fs.readFileSync(path.join(src, file), 'utf8');
    assert.doesNotMatch(text, /Copy as prompt context/, `${file} names the action as the command does`);
  }
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
