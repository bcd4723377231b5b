// Tests that run inside a real VS Code (code-server), in the extension host, with the extension
// loaded from its folder. test/e2e/run.mjs starts VS Code with this module as
// `extensionTestsPath`; VS Code calls run() and reports whether it threw.
//
// The extension is not activated before the first test: the first use is a tool call.
//
// The workspace is made by run.mjs: a.txt, src/main.c, logo.png, docs/my file.md,
// docs/notes.txt, docs/skip.tmp (excluded by files.exclude), docs/deeper/hidden.txt, .env,
// escape.txt (a link to /etc/hostname), prompt.md, and build/out.txt and debug.log (left out by
// the .gitignore).

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReaderdApi } from '../../src/api';
import { readSettings } from '../../src/config';
import type { ReadCommandOutcome } from '../../src/commands/readCommand';
import type { ShownResult } from '../../src/results/results';
import type { ChatAttachment } from '../../src/results/sendCommands';

/** What the `readerd.resultsView` command answers. */
interface ResultsViewState {
  title: string;
  files: string[];
  html: string;
  visible: boolean;
  back?: string;
}
import type { VisionOutcome } from '../../src/commands/visionAnswer';
import { EXTENSION_ID, readerdChildren, resultsFile, runTests, test, waitFor } from './harness';
import { mentionTests } from './mentions';
import { realRepoTests } from './realRepo';
import { firstRunTests } from './firstRun';

function root(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'a workspace folder is open');
  return folder.uri.fsPath;
}

function uri(rel: string): vscode.Uri {
  return vscode.Uri.file(path.join(root(), rel));
}

let api: ReaderdApi;

test('vscode_extension_inactive_until_used', async () => {
  const ext = vscode.extensions.getExtension<ReaderdApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is installed`);
  // The workbench has finished starting (this suite runs after it): nothing activated readerd.
  assert.equal(ext.isActive, false, 'not activated at startup');
  assert.deepEqual(readerdChildren(), [], 'no readerd process');
});

test('vscode_tool_call_activates_and_starts_daemon', async () => {
  const info = await waitFor('the tool in vscode.lm.tools', () => vscode.lm.tools.find((t) => t.name === 'readerd_read_files'));
  assert.ok(info, 'the tool is listed from package.json before activation');
  const result = await vscode.lm.invokeTool('readerd_read_files', { input: { paths: ['a.txt'] }, toolInvocationToken: undefined });
  const [text] = result.content;
  assert.ok(text instanceof vscode.LanguageModelTextPart);
  assert.match(text.value, /<Content path='a.txt' type='text'/);
  const ext = vscode.extensions.getExtension<ReaderdApi>(EXTENSION_ID)!;
  assert.equal(ext.isActive, true, 'the tool call activated the extension');
  api = ext.exports;
  assert.equal(api.apiVersion, 1);
  assert.equal(typeof api.readFiles, 'function');
  assert.equal(typeof api.expandMentions, 'function');
  const commands = await vscode.commands.getCommands(true);
  for (const c of ['readerd.readFiles', 'readerd.copyAsPromptContext', 'readerd.restart', 'readerd.showLog']) {
    assert.ok(commands.includes(c), `command ${c} registered`);
  }
});

test('vscode_daemon_started_by_first_use', async () => {
  const info = api.daemon();
  assert.equal(info.state, 'running');
  assert.equal(typeof info.pid, 'number');
  assert.equal(info.serverInfo?.name, 'readerd');
  assert.match(info.target, /^stdio .*readerd$/);
  assert.deepEqual(readerdChildren(), [info.pid], 'one daemon, started by this extension host');
});

test('vscode_settings_defaults_come_from_package_json', async () => {
  const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
  const properties = ext.packageJSON.contributes.configuration.properties as Record<string, { default: unknown }>;
  const settings = readSettings() as unknown as Record<string, unknown>;
  const names = Object.keys(properties).map((k) => k.replace(/^readerd\./, ''));
  assert.deepEqual(Object.keys(settings).sort(), names.sort());
  for (const name of names) {
    // readerd.path is set by the test's user settings, the vision endpoint by the workspace's;
    // every other one is package.json's default.
    if (!['path', 'vision.baseUrl', 'vision.model'].includes(name)) {
      assert.deepEqual(settings[name], properties[`readerd.${name}`]!.default, `readerd.${name}`);
    }
  }
});

test('vscode_settings_changes_apply', async () => {
  const config = () => vscode.workspace.getConfiguration('readerd');
  const root0 = root();
  try {
    // A request setting: the next read follows it, the daemon keeps running.
    const pid = api.daemon().pid;
    await config().update('lineNumbers', false, vscode.ConfigurationTarget.Global);
    const shown = (await vscode.commands.executeCommand('readerd.readFiles', uri('a.txt'), [uri('a.txt')])) as ShownResult;
    assert.match(shown.result.xml, /<!\[CDATA\[alpha\nbeta/);
    assert.equal(api.daemon().pid, pid);
    // A daemon setting: restarts it, and the new fence applies.
    await config().update('exclude', ['a.txt'], vscode.ConfigurationTarget.Global);
    await waitFor('a restarted daemon', () => api.daemon().state === 'running' && api.daemon().pid !== pid);
    const denied = await api.readFiles(['a.txt', 'src/main.c']);
    assert.deepEqual(denied.files.map((f) => f.code ?? f.type), ['ACCESS_DENIED', 'text']);
  } finally {
    const pid = api.daemon().pid;
    await config().update('lineNumbers', undefined, vscode.ConfigurationTarget.Global);
    await config().update('exclude', undefined, vscode.ConfigurationTarget.Global);
    await waitFor('the daemon back with the defaults', () => api.daemon().state === 'running' && api.daemon().pid !== pid);
  }
  assert.equal(root(), root0);
  const back = await api.readFiles(['a.txt', '.env']);
  assert.deepEqual(back.files.map((f) => f.code ?? f.type), ['text', 'ACCESS_DENIED']);
  assert.match(back.xml, /\s+1\talpha/);
});

test('vscode_read_command_on_multi_selection', async () => {
  const selection = [uri('a.txt'), uri('logo.png'), uri('docs')];
  const shown = (await vscode.commands.executeCommand('readerd.readFiles', selection[0], selection)) as ReadCommandOutcome | undefined;
  assert.ok(shown, 'the command returned what it showed');
  const files = shown.result.files.map((f) => f.path);
  // The daemon expands the folder, recursively, in byte order; docs/skip.tmp is hidden by
  // files.exclude and left out.
  assert.deepEqual(files, ['a.txt', 'logo.png', 'docs/deeper/hidden.txt', 'docs/my file.md', 'docs/notes.txt']);
  assert.deepEqual(shown.result.files.map((f) => f.type), ['text', 'image', 'text', 'text', 'text']);
  // Planned first: the plan's tokens are those of the read (below readerd.confirmAboveTokens:
  // no question), and the summary says them and what was left out.
  assert.equal(shown.planned.paths.length, 5);
  assert.equal(shown.planned.hidden, 1);
  assert.ok(shown.planned.tokens > 0);
  assert.equal(shown.planned.tokens, shown.result.tokens);
  assert.match(shown.summary, new RegExp(`^readerd: read 5 of 5 files \\(\\d+ lines, [0-9.]+ KB, about ${shown.result.tokens} tokens, 1 image\\); left out: 1 hidden by files.exclude$`));
  // One results view, in a webview panel, lists the files; the XML is a click away.
  const view = await waitFor('the results view', async () => {
    const v = await vscode.commands.executeCommand<ResultsViewState | undefined>('readerd.resultsView');
    return v?.title === shown.title ? v : undefined;
  });
  assert.deepEqual(view.files, files);
  assert.match(view.html, /<img src="data:image\/png;base64,[^"]+" alt="logo\.png"/);
  assert.match(view.html, /<span class="ln">1<\/span><span class="tx">alpha<\/span>/);
  assert.ok(!vscode.window.visibleTextEditors.some((e) => e.document.uri.scheme === 'readerd'), 'no XML tab per read');
  const resultTabs = (): vscode.Tab[] => vscode.window.tabGroups.all.flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('readerd.results'));
  await waitFor('one results panel, titled for the read', () => resultTabs().length === 1 && resultTabs()[0]!.label === `readerd: ${shown.title}`);
  const rawUri = await vscode.commands.executeCommand<vscode.Uri>('readerd.showRawXml');
  const editor = await waitFor('the XML editor', () =>
    vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === rawUri.toString()));
  const xml = editor.document.getText();
  assert.equal(xml, shown.result.xml);
  assert.equal(editor.document.languageId, 'xml');
  assert.equal(shown.uri.scheme, 'readerd');
  const contents = [...xml.matchAll(/<Content path='([^']*)'/g)].map((m) => m[1]);
  assert.deepEqual(contents, files);
  assert.match(xml, /<Content path='a.txt' type='text'[^>]*>\s*<!\[CDATA\[\s+1\talpha\n/);
  assert.match(xml, /<Content path='logo.png' type='image'[^>]*mediaType='image\/png'/);
  assert.doesNotMatch(xml, /skip\.tmp/);
  // A second read reuses the panel.
  await vscode.commands.executeCommand('readerd.readFiles', uri('a.txt'), [uri('a.txt')]);
  await waitFor('the same panel, titled for the new read', () => resultTabs().length === 1 && resultTabs()[0]!.label === 'readerd: 1 file');
  await vscode.commands.executeCommand('readerd.readFiles', selection[0], selection);
});

test('vscode_copy_as_prompt_context', async () => {
  const xml = (await vscode.commands.executeCommand('readerd.copyAsPromptContext')) as string | undefined;
  assert.ok(xml?.startsWith('<ReadResults'), 'the command returns the XML it copied');
  // The last read has logo.png: the text copied says it is not there.
  assert.match(xml!, /^<ReadResults [^>]*>\n<!-- 1 image not included \(copied as text\): logo\.png -->\n/);
  const clip = await vscode.env.clipboard.readText();
  assert.equal(clip, xml);
});

test('vscode_save_images_and_add_to_chat', async () => {
  const folder = uri('saved-images');
  const written = (await vscode.commands.executeCommand('readerd.saveImages', folder)) as vscode.Uri[];
  assert.deepEqual(written.map((u) => path.basename(u.fsPath)), ['logo.png']);
  assert.equal(fs.readFileSync(written[0]!.fsPath).subarray(1, 4).toString(), 'PNG');
  fs.rmSync(folder.fsPath, { recursive: true, force: true });
  const attached = (await vscode.commands.executeCommand('readerd.addToChat')) as ChatAttachment;
  assert.deepEqual(attached.files, ['a.txt', 'docs/deeper/hidden.txt', 'docs/my file.md', 'docs/notes.txt']);
  assert.deepEqual(attached.images, ['logo.png']);
  assert.deepEqual(attached.skipped, []);
  assert.deepEqual(attached.asText, []);
  assert.equal(attached.opened, true, 'workbench.action.chat.open took the attachments');
});

test('vscode_expand_mentions_text_image_folder', async () => {
  const message = 'Explain @/a.txt with the logo @/logo.png, and everything in @/docs/ (start with @"/docs/my file.md").';
  const out = await api.expandMentions(message);
  assert.deepEqual(out.paths, ['a.txt', 'logo.png', 'docs/my file.md', 'docs/notes.txt']);
  assert.ok(out.text.startsWith("Explain 'a.txt' (see below for file content) with the logo 'logo.png' (see below for file content), " +
    "and everything in 'docs/' (see below for folder content) (start with 'docs/my file.md' (see below for file content)).\n\n<ReadResults"),
  out.text.slice(0, 400));
  const contents = [...out.text.matchAll(/<Content path='([^']*)'/g)].map((m) => m[1]);
  assert.deepEqual(contents, out.paths);
  assert.match(out.text, /<!\[CDATA\[alpha\nbeta\ngamma\n\]\]>/, 'raw content, no line numbers');
  assert.doesNotMatch(out.text, /skip\.tmp|hidden\.txt/);
  assert.equal(out.images.length, 1);
  assert.equal(out.images[0]!.mediaType, 'image/png');
  assert.deepEqual(Buffer.from(out.images[0]!.data, 'base64'), fs.readFileSync(path.join(root(), 'logo.png')));
});

test('vscode_read_files_api', async () => {
  const result = await api.readFiles(['src/main.c', { path: 'a.txt', offset: 2, limit: 1 }, 'missing.txt']);
  assert.deepEqual(result.files.map((f) => f.code ?? f.type), ['text', 'text', 'FILE_NOT_FOUND']);
  assert.deepEqual(result.files[1]!.shown, [2, 2]);
  const source = new vscode.CancellationTokenSource();
  source.cancel();
  await assert.rejects(api.readFiles(['a.txt'], { token: source.token }), (e: Error & { kind?: string }) => e.kind === 'cancelled');
});

test('vscode_workspace_fence', async () => {
  // Defaults: confined to the workspace folder, secrets excluded; the daemon refuses them.
  const result = await api.readFiles(['.env', 'escape.txt', '../outside.txt', '/etc/hostname', 'a.txt']);
  assert.deepEqual(result.files.map((f) => f.code ?? f.type), ['ACCESS_DENIED', 'ACCESS_DENIED', 'ACCESS_DENIED', 'ACCESS_DENIED', 'text']);
  assert.doesNotMatch(result.xml, /not-for-the-model/);
  assert.equal(result.files[0]!.bytes, undefined, 'no size of an excluded file');
});

test('vscode_lm_tool_registered_and_answers', async () => {
  const info = await waitFor('the tool in vscode.lm.tools', () => vscode.lm.tools.find((t) => t.name === 'readerd_read_files'));
  const schema = info.inputSchema as { properties?: Record<string, unknown>; required?: string[] } | undefined;
  assert.deepEqual(Object.keys(schema?.properties ?? {}).sort(), ['limit', 'offset', 'pages', 'paths']);
  assert.deepEqual(schema?.required, ['paths']);
  const result = await vscode.lm.invokeTool('readerd_read_files', {
    input: { paths: ['a.txt', 'logo.png', 'src/main.c'], limit: 2 },
    toolInvocationToken: undefined,
  });
  const [text, image, ...rest] = result.content;
  assert.equal(rest.length, 0);
  assert.ok(text instanceof vscode.LanguageModelTextPart, 'first part is text');
  assert.match(text.value, /^<ReadResults/);
  assert.match(text.value, /<Content path='a.txt'[^>]*truncated='true' shown='1-2'>/);
  assert.match(text.value, /<Content path='src\/main.c'/);
  assert.ok(image instanceof vscode.LanguageModelDataPart, 'second part is an image data part');
  assert.equal(image.mimeType, 'image/png');
  assert.deepEqual(Buffer.from(image.data), fs.readFileSync(path.join(root(), 'logo.png')));
});

test('vscode_read_command_caps_a_big_folder_in_the_open_and_reads_the_rest', async () => {
  // 502 files: readerd.folderMaxFiles (500) of them are read; the view and the summary say
  // "500 of 502 files", and Read the rest reads the other 2 (the same expansion, skip 500).
  const many = path.join(root(), 'many');
  fs.mkdirSync(many, { recursive: true });
  for (let i = 0; i < 502; i++) {
    fs.writeFileSync(path.join(many, `f${String(i).padStart(3, '0')}.txt`), `file ${i}\n`);
  }
  try {
    const shown = (await vscode.commands.executeCommand('readerd.readFiles', uri('many'), [uri('many')])) as ReadCommandOutcome | undefined;
    assert.ok(shown);
    assert.equal(shown.result.files.length, 500);
    assert.equal(shown.result.files[499]!.path, 'many/f499.txt');
    assert.deepEqual(shown.caps, [{ path: 'many', first: 1, shown: 500, total: 502 }]);
    assert.match(shown.summary, /; capped by readerd\.folderMaxFiles: many\/: 500 of 502 files \(Read the rest in the view\)/);
    assert.doesNotMatch(shown.summary, /raise expand\.maxFiles/, 'no advice a person in VS Code cannot follow');
    const view = await waitFor('the view of the capped read', async () => {
      const v = await vscode.commands.executeCommand<ResultsViewState | undefined>('readerd.resultsView');
      return v?.title === shown.title ? v : undefined;
    });
    assert.match(view.html, /many\/: 500 of 502 files <span class="meta">\(readerd\.folderMaxFiles: 500\)<\/span> <button class="action" data-action="rest" data-cap="0">Read the rest \(2 files\)<\/button>/);
    // What the button does: the rest, in the same view, with a way back.
    const rest = (await vscode.commands.executeCommand('readerd.readRest', { path: 'many', skip: 500, total: 502 })) as ReadCommandOutcome;
    assert.deepEqual(rest.result.files.map((f) => f.path), ['many/f500.txt', 'many/f501.txt']);
    assert.equal(rest.title, 'many/: files 501–502 of 502');
    const after = await waitFor('the view of the rest', async () => {
      const v = await vscode.commands.executeCommand<ResultsViewState | undefined>('readerd.resultsView');
      return v?.title === rest.title ? v : undefined;
    });
    assert.equal(after.back, shown.title, 'Back returns to the capped read');
    // The cap is a setting.
    await vscode.workspace.getConfiguration('readerd').update('folderMaxFiles', 501, vscode.ConfigurationTarget.Workspace);
    try {
      const more = (await vscode.commands.executeCommand('readerd.readFiles', uri('many'), [uri('many')])) as ReadCommandOutcome;
      assert.equal(more.result.files.length, 501);
      assert.deepEqual(more.caps, [{ path: 'many', first: 1, shown: 501, total: 502 }]);
    } finally {
      await vscode.workspace.getConfiguration('readerd').update('folderMaxFiles', undefined, vscode.ConfigurationTarget.Workspace);
    }
  } finally {
    fs.rmSync(many, { recursive: true, force: true });
  }
}, 90_000);

/** The requests the test's vision endpoint received (tests/vision-server.py), oldest first. */
function visionRequests(): Array<{ path: string; headers: Record<string, string>; body: { model: string; messages: Array<{ content: Array<{ type: string; text?: string; image_url?: { url: string; detail: string } }> }> } }> {
  const dir = process.env.READERD_E2E_VISION_DIR;
  assert.ok(dir, 'READERD_E2E_VISION_DIR is set by run.mjs');
  return fs.readdirSync(dir).filter((f) => /^\d+\.json$/.test(f)).sort().map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
}

test('vscode_vision_ask_about_images_command', async () => {
  const key = process.env.READERD_E2E_VISION_KEY;
  assert.ok(key, 'READERD_E2E_VISION_KEY is set by run.mjs');
  assert.equal(await vscode.commands.executeCommand('readerd.setVisionApiKey', key), true);
  assert.ok(!JSON.stringify(vscode.workspace.getConfiguration('readerd')).includes(key), 'no setting holds the key');
  const before = visionRequests().length;
  const query = 'What is drawn here?';
  const outcome = (await vscode.commands.executeCommand('readerd.askAboutImages', {
    uris: [uri('logo.png'), uri('scan.pdf'), uri('gone.png'), uri('a.txt')],
    query,
  })) as VisionOutcome | undefined;
  assert.ok(outcome?.result, `an answer: ${outcome?.error}`);
  // The endpoint's answer names what it received: the question, one image part per picture.
  assert.equal(outcome.result.answer, `asked '${query}' about 2 image(s): ${outcome.images.map((i) => i.detail).join(',')}`);
  assert.equal(outcome.result.provider, 'openai');
  assert.deepEqual(outcome.images.map((i) => [i.path, i.page]), [['logo.png', undefined], ['scan.pdf', 1]]);
  assert.deepEqual(outcome.files.map((f) => f.code ?? f.type), ['image', 'pdf', 'FILE_NOT_FOUND', 'UNSUPPORTED_FORMAT']);
  const requests = visionRequests();
  assert.equal(requests.length, before + 1, 'one request to the endpoint');
  const sent = requests[before]!;
  assert.equal(sent.path, '/ok/v1/chat/completions');
  // Compared without printing it: a failure message must not put the key in a log.
  assert.ok(sent.headers.authorization === `Bearer ${key}`, `the key from the secret storage, to its own base URL (got ${sent.headers.authorization === undefined ? 'no' : 'another'} Authorization)`);
  assert.equal(sent.body.model, 'e2e-vision-model');
  const parts = sent.body.messages[0]!.content;
  assert.deepEqual(parts.filter((p) => p.type === 'text').map((p) => p.text), [query]);
  assert.equal(parts.filter((p) => p.type === 'image_url').length, 2);
  assert.ok(parts.filter((p) => p.type === 'image_url').every((p) => /^data:image\/(png|jpeg);base64,/.test(p.image_url!.url)));
  // The answer panel, with the files that could not be sent.
  // A folder gives the pictures under it: docs holds none; the workspace's root holds both.
  const none = await vscode.commands.executeCommand('readerd.askAboutImages', { uris: [uri('docs')], query });
  assert.equal(none, undefined);
  const all = (await vscode.commands.executeCommand('readerd.askAboutImages', { uris: [vscode.Uri.file(root())], query })) as VisionOutcome | undefined;
  assert.deepEqual(all?.images.map((i) => i.path), ['logo.png', 'scan.pdf']);
  await waitFor('the answer panel', () =>
    vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputWebview && t.label === 'readerd: Vision Answer'));
}, 60_000);

test('vscode_vision_lm_tool', async () => {
  const info = await waitFor('the tool in vscode.lm.tools', () => vscode.lm.tools.find((t) => t.name === 'readerd_read_images'));
  const schema = info.inputSchema as { properties?: Record<string, unknown>; required?: string[] } | undefined;
  assert.deepEqual(Object.keys(schema?.properties ?? {}).sort(), ['detail', 'pages', 'paths', 'query']);
  assert.deepEqual(schema?.required, ['paths', 'query']);
  const result = await vscode.lm.invokeTool('readerd_read_images', {
    input: { paths: ['logo.png', 'missing.png'], query: 'Which colours?', detail: 'low' },
    toolInvocationToken: undefined,
  });
  const [text, ...rest] = result.content;
  assert.equal(rest.length, 0);
  assert.ok(text instanceof vscode.LanguageModelTextPart);
  assert.match(text.value, /^<ReadImagesResult provider='openai'[^>]* images='1'>/);
  assert.match(text.value, /<Answer>asked 'Which colours\?' about 1 image\(s\): low<\/Answer>/);
  assert.match(text.value, /<Content path='missing.png' code='FILE_NOT_FOUND'/);
  // An endpoint that fails: the tool says why, with the files, and the key is not in it.
  const configured = vscode.workspace.getConfiguration('readerd').get<string>('vision.baseUrl')!;
  await vscode.workspace.getConfiguration('readerd').update('vision.baseUrl', `http://127.0.0.1:${new URL(configured).port}/status-401/v1`, vscode.ConfigurationTarget.Workspace);
  try {
    const failed = await vscode.lm.invokeTool('readerd_read_images', { input: { paths: ['logo.png'], query: 'Q' }, toolInvocationToken: undefined });
    const [part] = failed.content;
    assert.ok(part instanceof vscode.LanguageModelTextPart);
    assert.match(part.value, /^readerd_read_images failed: readerd: .*HTTP 401/);
    assert.ok(!part.value.includes(process.env.READERD_E2E_VISION_KEY!), 'no key in the error');
  } finally {
    await vscode.workspace.getConfiguration('readerd').update('vision.baseUrl', configured, vscode.ConfigurationTarget.Workspace);
  }
}, 60_000);

mentionTests();
firstRunTests();
realRepoTests();

test('vscode_daemon_restarts_after_kill', async () => {
  const before = api.daemon();
  assert.equal(before.state, 'running');
  const states: string[] = [];
  const sub = api.onDidChangeDaemonState((i) => states.push(i.state));
  process.kill(before.pid!, 'SIGKILL');
  const after = await waitFor('a new daemon', () => {
    const i = api.daemon();
    return i.state === 'running' && i.pid !== undefined && i.pid !== before.pid ? i : undefined;
  });
  sub.dispose();
  assert.ok(states.includes('restarting'), `states: ${states.join(',')}`);
  assert.equal(after.restarts, before.restarts + 1);
  let alive = true;
  try {
    process.kill(before.pid!, 0);
  } catch {
    alive = false;
  }
  assert.equal(alive, false, 'the killed daemon is gone');
  const result = await api.readFiles(['a.txt']);
  assert.equal(result.files[0]!.lines, 3);
});

export async function run(): Promise<void> {
  await runTests(resultsFile('single'));
}
