// Tests inside a real VS Code opened on a multi-root workspace (a .code-workspace file made by
// test/e2e/run.mjs): folders `app` (a.txt, src/main.c, link-to-lib.txt: a link to lib/b.txt)
// and `lib` shown as "Library" (b.txt, only-in-lib.txt, logo.png, docs/one.md, docs/two.md,
// .env), and a folder `extra` outside the workspace (x.txt) that a test adds and removes.
// The first use here is a command.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReaderdApi } from '../../src/api';
import type { ReadCommandOutcome } from '../../src/commands/readCommand';
import type { ShownResult } from '../../src/results/results';
import { EXTENSION_ID, readerdChildren, resultsFile, runTests, test, waitFor } from './harness';

function folder(name: string): vscode.WorkspaceFolder {
  const f = vscode.workspace.workspaceFolders?.find((w) => w.name === name);
  assert.ok(f, `workspace folder ${name} is open`);
  return f;
}

function uri(name: string, rel: string): vscode.Uri {
  return vscode.Uri.joinPath(folder(name).uri, rel);
}

let api: ReaderdApi;

test('vscode_multi_root_workspace_opened', async () => {
  assert.deepEqual(vscode.workspace.workspaceFolders?.map((f) => f.name), ['app', 'Library']);
  const ext = vscode.extensions.getExtension<ReaderdApi>(EXTENSION_ID);
  assert.ok(ext);
  assert.equal(ext.isActive, false, 'not activated at startup');
  // Activated for its API, the extension still starts no daemon.
  api = await ext.activate();
  assert.equal(api.daemon().state, 'stopped');
  assert.equal(api.daemon().pid, undefined);
  assert.deepEqual(readerdChildren(), []);
});

test('vscode_multi_root_command_first_use_reads_both_folders', async () => {
  const selection = [uri('app', 'a.txt'), uri('Library', 'b.txt'), uri('Library', 'logo.png'), uri('Library', 'docs')];
  const shown = (await vscode.commands.executeCommand('readerd.readFiles', selection[0], selection)) as ShownResult | undefined;
  assert.ok(shown);
  assert.deepEqual(shown.result.files.map((f) => f.path), ['app/a.txt', 'Library/b.txt', 'Library/logo.png', 'Library/docs/one.md', 'Library/docs/two.md']);
  assert.deepEqual(shown.result.files.map((f) => f.type), ['text', 'text', 'image', 'text', 'text']);
  assert.deepEqual([...shown.result.xml.matchAll(/<Content path='([^']*)'/g)].map((m) => m[1]), shown.result.files.map((f) => f.path));
  assert.equal(shown.result.images.length, 1);
  assert.equal(shown.result.images[0]!.path, 'Library/logo.png');
  const info = api.daemon();
  assert.equal(info.state, 'running', 'the command started the daemon');
  assert.deepEqual(readerdChildren(), [info.pid]);
});

test('vscode_multi_root_command_expands_whole_folders', async () => {
  // Both folders themselves: each expanded by the daemon under its own fence, merged with the
  // folder's name in front, `from` and the notices renumbered to the selection.
  const selection = [folder('app').uri, folder('Library').uri];
  const shown = (await vscode.commands.executeCommand('readerd.readFiles', selection[0], selection)) as ReadCommandOutcome | undefined;
  assert.ok(shown);
  const paths = shown.result.files.map((f) => f.path);
  assert.deepEqual(paths.filter((p) => p.startsWith('Library/')), ['Library/b.txt', 'Library/docs/one.md', 'Library/docs/two.md', 'Library/logo.png', 'Library/only-in-lib.txt']);
  // app/link-to-lib.txt leads into Library, outside app's fence: the walk leaves it out, as
  // naming it is ACCESS_DENIED (vscode_multi_root_fence_per_folder).
  assert.deepEqual(paths.filter((p) => p.startsWith('app/')), ['app/a.txt', 'app/src/main.c']);
  assert.equal(paths.length, 7, 'the files of app first, then those of Library');
  for (const f of vscode.workspace.workspaceFolders!) {
    assert.ok(!shown.result.xml.includes(f.uri.fsPath) && !shown.summary.includes(f.uri.fsPath), `no absolute path of ${f.name}`);
  }
  assert.ok(paths.indexOf('app/src/main.c') < paths.indexOf('Library/b.txt'));
  assert.deepEqual(shown.planned.entries.map((e) => [e.path, e.from]), paths.map((p) => [p, p.startsWith('app/') ? 0 : 1]));
  // Library/.env is refused by the fence's excludes: it leaves no trace, not even a count.
  assert.deepEqual(shown.planned.notices, []);
  assert.doesNotMatch(shown.summary, /excluded|\.env/);
  assert.deepEqual([...shown.result.xml.matchAll(/<Content path='([^']*)'/g)].map((m) => m[1]), paths);
});

test('vscode_multi_root_fence_per_folder', async () => {
  const result = await api.readFiles(['app/link-to-lib.txt', 'Library/b.txt', 'only-in-lib.txt', 'Library/.env', 'app/../../outside.txt', '/etc/hostname', path.join(folder('Library').uri.fsPath, 'b.txt')]);
  assert.deepEqual(result.files.map((f) => f.code ?? f.type), [
    'ACCESS_DENIED', // a link from app into Library: outside app
    'text',
    'text', // relative, in the folder that has it
    'ACCESS_DENIED', // excluded
    'ACCESS_DENIED', // outside every folder
    'ACCESS_DENIED',
    'text', // absolute, in Library
  ]);
  assert.equal(result.files[2]!.lines, 1);
  assert.doesNotMatch(result.xml, /not-for-the-model/);
});

test('vscode_multi_root_mentions_and_tool', async () => {
  const out = await api.expandMentions('Compare @/app/src/main.c with @/Library/docs/ and @/only-in-lib.txt.');
  assert.deepEqual(out.paths, ['app/src/main.c', 'Library/docs/one.md', 'Library/docs/two.md', 'only-in-lib.txt']);
  assert.deepEqual(out.result?.files.map((f) => f.code ?? f.type), ['text', 'text', 'text', 'text']);
  assert.match(out.text, /^Compare 'app\/src\/main.c' \(see below for file content\) with 'Library\/docs\/' \(see below for folder content\)/);
  const tool = await vscode.lm.invokeTool('readerd_read_files', { input: { paths: ['Library/b.txt', 'app/a.txt', 'Library/logo.png'] }, toolInvocationToken: undefined });
  const [text, image] = tool.content;
  assert.ok(text instanceof vscode.LanguageModelTextPart);
  assert.deepEqual([...text.value.matchAll(/<Content path='([^']*)'/g)].map((m) => m[1]), ['Library/b.txt', 'app/a.txt', 'Library/logo.png']);
  assert.match(text.value, /<Content path='Library\/logo.png'[^>]* image='0'\/>/);
  assert.ok(image instanceof vscode.LanguageModelDataPart);
});

test('vscode_multi_root_follows_folder_changes', async () => {
  const extra = process.env.READERD_E2E_EXTRA_FOLDER ?? path.join(path.dirname(folder('app').uri.fsPath), 'extra');
  assert.ok(fs.existsSync(path.join(extra, 'x.txt')), 'run.mjs made the extra folder');
  const outside = await api.readFiles([path.join(extra, 'x.txt')]);
  assert.equal(outside.files[0]!.code, 'ACCESS_DENIED', 'outside the workspace before it is added');
  const added = new Promise<void>((resolve) => {
    const sub = vscode.workspace.onDidChangeWorkspaceFolders(() => {
      sub.dispose();
      resolve();
    });
  });
  assert.ok(vscode.workspace.updateWorkspaceFolders(2, 0, { uri: vscode.Uri.file(extra), name: 'Extra' }));
  await added;
  await waitFor('the extension to see the folder', async () => (await api.readFiles(['Extra/x.txt'])).files[0]!.type === 'text');
  const inside = await api.readFiles([path.join(extra, 'x.txt'), 'Extra/x.txt', 'app/a.txt']);
  assert.deepEqual(inside.files.map((f) => f.code ?? f.type), ['text', 'text', 'text']);
  const removed = new Promise<void>((resolve) => {
    const sub = vscode.workspace.onDidChangeWorkspaceFolders(() => {
      sub.dispose();
      resolve();
    });
  });
  assert.ok(vscode.workspace.updateWorkspaceFolders(2, 1));
  await removed;
  await waitFor('the folder to be gone', async () => (await api.readFiles([path.join(extra, 'x.txt')])).files[0]!.code === 'ACCESS_DENIED');
  // "Extra/x.txt" now names no folder: it is looked for in the first folder.
  assert.equal((await api.readFiles(['Extra/x.txt'])).files[0]!.code, 'FILE_NOT_FOUND');
});

export async function run(): Promise<void> {
  await runTests(resultsFile('multi-root'));
}
