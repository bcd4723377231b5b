// Tests of the first run and of the words a person reads, inside VS Code: a readerd.path that is
// not readerd or not there fails at once with the reason and gives up after three tries; a path
// set back is used by the next read; the read summary says what was refused or cut, as a warning;
// "readerd: Add to Prompt Context" reads and copies; the tool takes a window per path. Registered
// by index.ts after the extension is active.

import assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReaderdApi } from '../../src/api';
import type { ReadCommandOutcome } from '../../src/commands/readCommand';
import { EXTENSION_ID, test, waitFor } from './harness';

function root(): string {
  return vscode.workspace.workspaceFolders![0]!.uri.fsPath;
}

function uri(rel: string): vscode.Uri {
  return vscode.Uri.file(path.join(root(), rel));
}

function api(): ReaderdApi {
  return vscode.extensions.getExtension<ReaderdApi>(EXTENSION_ID)!.exports;
}

/** The time a promise takes to settle, and its error. */
async function timed(p: Promise<unknown>): Promise<{ ms: number; error: Error | undefined }> {
  const t0 = Date.now();
  try {
    await p;
    return { ms: Date.now() - t0, error: undefined };
  } catch (error) {
    return { ms: Date.now() - t0, error: error as Error };
  }
}

export function firstRunTests(): void {
  test('vscode_bad_readerd_path_fails_fast_and_comes_back', async () => {
    const config = () => vscode.workspace.getConfiguration('readerd');
    const original = config().inspect<string>('path')?.globalValue;
    try {
      // A program that exits at once: three quick failures, then no more retries.
      await config().update('path', '/bin/true', vscode.ConfigurationTarget.Global);
      const failed = await waitFor('the daemon given up', () => {
        const info = api().daemon();
        return info.state === 'failed' ? info : undefined;
      }, 15_000);
      assert.match(failed.lastError ?? '', /stopped restarting after 3 failures in a row \(last: \/bin\/true exited with status 0 before answering initialize/);
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(api().daemon().state, 'failed', 'no restart after giving up');
      const read = await timed(api().readFiles(['a.txt']));
      assert.ok(read.error, 'the read failed');
      assert.ok(read.ms < 1000, `the read failed after ${read.ms} ms, not at once`);
      assert.match(read.error.message, /\/bin\/true exited with status 0/);
      // A path where nothing is: the error names it, in words.
      const missing = path.join(root(), 'no-such-dir', 'readerd');
      await config().update('path', missing, vscode.ConfigurationTarget.Global);
      const gone = await timed(api().readFiles(['a.txt']));
      assert.ok(gone.error && gone.ms < 1000, `failed at once (${gone.ms} ms)`);
      assert.ok(gone.error.message.includes(missing), gone.error.message);
      assert.doesNotMatch(gone.error.message, /spawn|ENOENT/);
    } finally {
      await config().update('path', original, vscode.ConfigurationTarget.Global);
    }
    // The path set back: the next read starts readerd at once.
    const back = await waitFor('a read with readerd back', async () => api().readFiles(['a.txt']).then((r) => r, () => undefined), 15_000);
    assert.equal(back.files[0]!.lines, 3);
    assert.equal(api().daemon().serverInfo?.name, 'readerd');
  }, 60_000);

  test('vscode_read_summary_in_words_as_a_warning', async () => {
    const outcome = (await vscode.commands.executeCommand('readerd.readFiles', uri('a.txt'), [uri('a.txt'), uri('.env')])) as ReadCommandOutcome;
    assert.equal(outcome.warning, true);
    assert.match(outcome.summary, /^readerd: read 1 of 2 files \(.*\); \.env refused: excluded by readerd\.exclude$/);
    assert.doesNotMatch(outcome.summary, /ACCESS_DENIED/);
    const whole = (await vscode.commands.executeCommand('readerd.readFiles', uri('a.txt'), [uri('a.txt')])) as ReadCommandOutcome;
    assert.equal(whole.warning, false);
  });

  test('vscode_add_to_prompt_context_adds_to_a_list_and_leaves_the_clipboard', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    const menus = ext.packageJSON.contributes.menus as Record<string, Array<{ command: string }>>;
    assert.ok(menus['explorer/context']!.some((m) => m.command === 'readerd.addToPromptContext'), 'on explorer items');
    assert.ok(menus['editor/title/context']!.some((m) => m.command === 'readerd.addToPromptContext'), 'on editor tabs');
    await vscode.commands.executeCommand('readerd.clearPromptContext');
    await vscode.env.clipboard.writeText('the person\'s own clipboard');
    type Added = ReadCommandOutcome & { added: { added: string[]; refused: string[]; message: string } };
    const outcome = (await vscode.commands.executeCommand('readerd.addToPromptContext', uri('src'), [uri('src'), uri('a.txt')])) as Added;
    assert.deepEqual(outcome.result.files.map((f) => f.path), ['src/main.c', 'a.txt'], 'the folder read through the daemon');
    assert.deepEqual(outcome.added.added, ['src/main.c', 'a.txt']);
    assert.equal(await vscode.env.clipboard.readText(), 'the person\'s own clipboard', 'adding does not touch the clipboard');
    // From an editor tab, and a refused file: it adds to the list; the refused file is named, not added.
    const tab = (await vscode.commands.executeCommand('readerd.addToPromptContext', uri('.env'), [uri('.env'), uri('docs/notes.txt')])) as Added;
    assert.deepEqual(tab.added.added, ['docs/notes.txt']);
    assert.deepEqual(tab.added.refused, ['.env refused: excluded by readerd.exclude']);
    assert.match(tab.added.message, /^readerd: added 1 file to the prompt context \(3 files, about [\d,]+ tokens in all\); not added: \.env refused: excluded by readerd\.exclude\.$/);
    const list = (await vscode.commands.executeCommand('readerd.promptContextList')) as Array<{ path: string }>;
    assert.deepEqual(list.map((e) => e.path), ['src/main.c', 'a.txt', 'docs/notes.txt']);
    // The list is a view of the Explorer, with its copy and clear.
    const views = (ext.packageJSON.contributes.views as Record<string, Array<{ id: string; name: string }>>).explorer!;
    assert.ok(views.some((v) => v.id === 'readerd.promptContext' && v.name === 'Prompt Context (readerd)'));
    // Copy Prompt Context: every file of the list, read now, in one <ReadResults>.
    const copied = (await vscode.commands.executeCommand('readerd.copyPromptContext')) as string;
    assert.deepEqual([...copied.matchAll(/<Content path='([^']*)'/g)].map((m) => m[1]), ['src/main.c', 'a.txt', 'docs/notes.txt']);
    assert.equal(await vscode.env.clipboard.readText(), copied);
    await vscode.commands.executeCommand('readerd.removeFromPromptContext', list[0]);
    assert.deepEqual(((await vscode.commands.executeCommand('readerd.promptContextList')) as Array<{ path: string }>).map((e) => e.path), ['a.txt', 'docs/notes.txt']);
    await vscode.commands.executeCommand('readerd.clearPromptContext');
    assert.deepEqual(await vscode.commands.executeCommand('readerd.promptContextList'), []);
  });

  test('vscode_lm_tool_window_per_path', async () => {
    const result = await vscode.lm.invokeTool('readerd_read_files', {
      input: { paths: [{ path: 'a.txt', offset: 2, limit: 1 }, 'src/main.c'] },
      toolInvocationToken: undefined,
    });
    const text = (result.content[0] as vscode.LanguageModelTextPart).value;
    assert.match(text, /<Content path='a.txt'[^>]* shown='2-2'/);
    assert.match(text, /<Content path='src\/main.c'[^>]* shown='1-6'/);
    const tool = vscode.lm.tools.find((t) => t.name === 'readerd_read_files')!;
    assert.match(tool.description, /\{path, offset, limit, pages\}/);
  });
}
