// Tests of @-mentions inside VS Code: completion in a Markdown file, the expand commands, hovers
// and links in the results. Registered by index.ts after the extension is active.
//
// run.mjs adds to the workspace: prompt.md, a .gitignore leaving out build/ and *.log, and
// build/out.txt and debug.log.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExpandedPrompt } from '../../src/mentions/expandCommand';
import { ShownResult } from '../../src/results/results';
import { test, waitFor } from './harness';

function root(): string {
  return vscode.workspace.workspaceFolders![0]!.uri.fsPath;
}

function uri(rel: string): vscode.Uri {
  return vscode.Uri.file(path.join(root(), rel));
}

/** Opens `rel` with `text` as its content (typed, not saved), the cursor at its end. */
async function openWith(rel: string, text: string): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(uri(rel));
  const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
  await editor.edit((b) => b.replace(new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), text));
  assert.equal(doc.getText(), text);
  const end = doc.positionAt(doc.getText().length);
  editor.selection = new vscode.Selection(end, end);
  return editor;
}

function label(item: vscode.CompletionItem): string {
  return typeof item.label === 'string' ? item.label : item.label.label;
}

export function mentionTests(): void {
  test('vscode_mention_completion_offers_workspace_files', async () => {
    // A file opened recently comes first.
    await vscode.window.showTextDocument(uri('docs/notes.txt'), { preview: false });
    const editor = await openWith('prompt.md', 'Explain @');
    assert.equal(editor.document.languageId, 'markdown');
    const position = editor.selection.active;
    const list = await waitFor('completion items', async () => {
      const l = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', editor.document.uri, position, '@');
      return l.items.some((i) => label(i) === 'src/main.c') ? l : undefined;
    });
    const labels = list.items.map(label);
    for (const want of ['a.txt', 'src/main.c', 'docs/my file.md', 'docs/notes.txt', 'logo.png', 'docs/', 'src/', 'docs/deeper/']) {
      assert.ok(labels.includes(want), `${want} offered: ${labels.join(', ')}`);
    }
    // files.exclude, .gitignore and readerd.exclude leave files out.
    for (const not of ['docs/skip.tmp', 'build/out.txt', 'debug.log', '.env', 'build/', 'prompt.md']) {
      assert.ok(!labels.includes(not), `${not} not offered`);
    }
    const byLabel = (l: string) => list.items.find((i) => label(i) === l)!;
    assert.equal(byLabel('src/main.c').insertText, '@/src/main.c ');
    assert.equal(byLabel('docs/my file.md').insertText, '@"/docs/my file.md" ', 'a path with spaces is quoted');
    assert.equal(byLabel('docs/').insertText, '@/docs/', 'a folder completes into the folder');
    assert.equal(byLabel('docs/').command?.command, 'editor.action.triggerSuggest');
    assert.equal(byLabel('src/main.c').kind, vscode.CompletionItemKind.File);
    assert.equal(byLabel('docs/').kind, vscode.CompletionItemKind.Folder);
    // The range covers the `@`, so accepting replaces what was typed.
    const range = byLabel('src/main.c').range as vscode.Range;
    assert.equal(range.start.character, 'Explain '.length);
    const sorted = [...list.items].sort((a, b) => (a.sortText ?? label(a)).localeCompare(b.sortText ?? label(b))).map(label);
    // The document being written is not offered first, though it is the last opened.
    assert.equal(sorted[0], 'docs/notes.txt', `the recently opened first: ${sorted.slice(0, 3).join(', ')}`);
  });

  test('vscode_mention_completion_not_after_email_or_in_code', async () => {
    for (const text of ['write to me@', 'code:\n```\n@', 'inline `@']) {
      const editor = await openWith('prompt.md', text);
      const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', editor.document.uri, editor.selection.active, '@');
      assert.ok(!list.items.some((i) => label(i) === 'src/main.c'), `no files offered after ${JSON.stringify(text)}`);
    }
  });

  test('vscode_mention_completion_accepted_inserts_the_mention', async () => {
    const editor = await openWith('prompt.md', 'Explain @ma');
    const position = editor.selection.active;
    const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', editor.document.uri, position, '@');
    const item = list.items.find((i) => label(i) === 'src/main.c');
    assert.ok(item, 'src/main.c offered after @ma');
    assert.equal(item.filterText, '@src/main.c');
    // What accepting does: the item's text replaces its range.
    await editor.edit((b) => b.replace(item.range as vscode.Range, item.insertText as string));
    assert.equal(editor.document.getText(), 'Explain @/src/main.c ');
  });

  test('vscode_mention_hover_shows_size_lines_modified', async () => {
    const editor = await openWith('prompt.md', 'Read @/a.txt and @docs/ please');
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', editor.document.uri, new vscode.Position(0, 7));
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    const stat = fs.statSync(path.join(root(), 'a.txt'));
    assert.match(text, /a\\\.txt.*text, 17 B, 3 lines, modified /);
    assert.ok(text.includes(new Date(stat.mtimeMs).toLocaleString()), text);
    const folder = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', editor.document.uri, new vscode.Position(0, 19));
    const folderText = folder.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(folderText, /folder, 2 files/, folderText);
  });

  test('vscode_expand_command_copies_the_prompt', async () => {
    const prompt = [
      'Fix @src/main.c using @/docs/ and @/a.txt; ask me@example.com.',
      '',
      '```python',
      '@app.route("/x")',
      '@/logo.png',
      '```',
      '',
    ].join('\n');
    await openWith('prompt.md', prompt);
    const out = (await vscode.commands.executeCommand('readerd.copyExpandedPrompt')) as ExpandedPrompt;
    assert.deepEqual(out.mentions.map((m) => m.raw), ['@src/main.c', '@/docs/', '@/a.txt']);
    assert.deepEqual(out.paths, ['src/main.c', 'docs/my file.md', 'docs/notes.txt', 'a.txt']);
    assert.ok(out.text.startsWith("Fix 'src/main.c' (see below for file content) using 'docs/' (see below for folder content) and " +
      "'a.txt' (see below for file content); ask me@example.com.\n\n```python\n@app.route(\"/x\")\n@/logo.png\n```\n\n\n<ReadResults"), out.text.slice(0, 400));
    const contents = [...out.text.matchAll(/<Content path='([^']*)'/g)].map((m) => m[1]);
    assert.deepEqual(contents, out.paths);
    assert.match(out.text, /<!\[CDATA\[alpha\nbeta\ngamma\n\]\]>/);
    assert.equal(out.summary, `expanded 3 mentions: 4 files, ${out.result!.lines} lines, ${out.result!.bytes} B, 0 images`);
    assert.equal(await vscode.env.clipboard.readText(), out.text);
  });

  test('vscode_expand_command_on_selection_opens_prompt_with_images', async () => {
    const editor = await openWith('prompt.md', 'not this @/a.txt\nbut @/logo.png and @/missing.txt\n');
    editor.selection = new vscode.Selection(1, 0, 2, 0);
    const out = (await vscode.commands.executeCommand('readerd.openExpandedPrompt')) as ExpandedPrompt;
    assert.deepEqual(out.paths, ['logo.png', 'missing.txt']);
    assert.match(out.summary, /^expanded 2 mentions: 1 file, .*, 1 image; missing.txt not read: no such file$/);
    assert.match(out.text, /'missing.txt' \(not read: no such file\)/, 'a missing mention says so where it is');
    const shown = out.shown!;
    assert.match(shown.uri.path, /^\/Prompt-\d+\.md$/);
    const doc = await waitFor('the prompt document', () =>
      vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === shown.uri.toString())?.document);
    assert.equal(doc.getText(), out.text);
    assert.equal(doc.languageId, 'markdown');
    // The picture is in the one results view, with the read it comes from; no images panel.
    const view = await waitFor('the results view with the picture', async () => {
      const v = await vscode.commands.executeCommand<{ title: string; html: string } | undefined>('readerd.resultsView');
      return v?.title === 'expanded prompt' && /alt="logo\.png"/.test(v.html) ? v : undefined;
    });
    assert.match(view.html, /<img src="data:image\/png;base64,[^"]+" alt="logo\.png"/);
    const webviews = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview);
    assert.ok(!webviews.some((t) => /image/i.test(t.label)), `no images panel: ${webviews.map((t) => t.label).join(', ')}`);
  });

  test('vscode_image_panel_shows_pdf_pages_with_their_number', async () => {
    const shown = (await vscode.commands.executeCommand('readerd.readFiles', uri('scan.pdf'), [uri('scan.pdf')])) as ShownResult;
    assert.equal(shown.result.files[0]!.type, 'pdf');
    assert.equal(shown.result.images.length, 1, 'the page without text is rendered');
    assert.equal(shown.result.images[0]!.page, 1);
    assert.match(shown.result.xml, /<Page number='1' image='0'\/>/);
    // The results view shows the page inline, labelled.
    const view = await waitFor('the results view', async () => {
      const v = await vscode.commands.executeCommand<{ title: string; html: string } | undefined>('readerd.resultsView');
      return v?.title === shown.title ? v : undefined;
    });
    assert.match(view.html, /<h4 class="part">page 1<\/h4>|alt="scan\.pdf, page 1"/);
    assert.match(view.html, /<img src="data:image\/png;base64,[^"]+" alt="scan\.pdf, page 1"/);
  });

  test('vscode_result_link_opens_the_file_at_the_first_line_shown', async () => {
    const shown = (await vscode.commands.executeCommand('readerd.readFiles', uri('a.txt'), [uri('a.txt'), uri('src/main.c'), uri('docs/my file.md')])) as ShownResult;
    const doc = await vscode.workspace.openTextDocument(shown.uri);
    const links = await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', shown.uri);
    assert.deepEqual(links.map((l) => doc.getText(l.range)), ['a.txt', 'src/main.c', 'docs/my file.md']);
    assert.deepEqual(links.map((l) => l.target?.fsPath), ['a.txt', 'src/main.c', 'docs/my file.md'].map((r) => path.join(root(), r)));
    assert.deepEqual(links.map((l) => l.target?.fragment), ['L1', 'L1', 'L1']);
    await vscode.commands.executeCommand('vscode.open', links[1]!.target);
    const editor = await waitFor('src/main.c in an editor', () =>
      vscode.window.activeTextEditor?.document.uri.fsPath === path.join(root(), 'src', 'main.c') ? vscode.window.activeTextEditor : undefined);
    assert.equal(editor.selection.active.line, 0);
    // Leave prompt.md as run.mjs made it, for the person's test that follows.
    const prompt = await vscode.workspace.openTextDocument(uri('prompt.md'));
    const edit = new vscode.WorkspaceEdit();
    edit.replace(prompt.uri, new vscode.Range(prompt.positionAt(0), prompt.positionAt(prompt.getText().length)), fs.readFileSync(path.join(root(), 'prompt.md'), 'utf8'));
    await vscode.workspace.applyEdit(edit);
    await prompt.save();
  });
}
