// The extension with a real repository, inside VS Code: 2,000 Go files of Go's own source tree in
// the results view (first paint within a second of the answer, the page's long tasks counted by
// the page itself), paths relative to the workspace folder when the folder itself is read, what
// Add to Chat attaches of a PDF, the summary of a cut file, Retry after a failed read, and the
// MCP server definitions following readerd.path and a binary that appears.

import assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReadCommandOutcome } from '../../src/commands/readCommand';
import type { PageStats, PaintReport } from '../../src/results/resultsPanel';
import type { ChatAttachment } from '../../src/results/sendCommands';
import type { ReaderdApi } from '../../src/api';
import { handleChatRequest } from '../../src/chat/chatParticipant';
import { resultsFile, test, waitFor } from './harness';

/** Where Go's source tree is (Debian's golang-1.19-src). */
const GO_SRC = '/usr/share/go-1.19/src';

function root(): string {
  return vscode.workspace.workspaceFolders![0]!.uri.fsPath;
}

function uri(rel: string): vscode.Uri {
  return vscode.Uri.file(path.join(root(), rel));
}

/** Copies the first `n` .go files of Go's tree (in path order) under `dir`, keeping their folders. */
function copyGoFiles(dir: string, n: number): number {
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (files.length >= n) {
        return;
      }
      const p = path.join(d, e.name);
      if (e.isDirectory() && e.name !== 'testdata') {
        walk(p);
      } else if (e.isFile() && e.name.endsWith('.go')) {
        files.push(p);
      }
    }
  };
  walk(GO_SRC);
  for (const f of files) {
    const to = path.join(dir, path.relative(GO_SRC, f));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(f, to);
  }
  return files.length;
}

interface ViewState {
  title: string;
  files: string[];
  html: string;
  seq: number;
  paint?: PaintReport;
  back?: string;
}

const view = (): Thenable<ViewState | undefined> => vscode.commands.executeCommand<ViewState | undefined>('readerd.resultsView');

export function realRepoTests(): void {
  test('vscode_results_view_2000_go_files_first_paint_and_long_tasks', async () => {
    assert.ok(fs.existsSync(GO_SRC), `${GO_SRC} (Debian's golang-1.19-src) is installed`);
    const dir = path.join(root(), 'go2000');
    const copied = copyGoFiles(dir, 2000);
    assert.equal(copied, 2000);
    const config = vscode.workspace.getConfiguration('readerd');
    await config.update('folderMaxFiles', 2000, vscode.ConfigurationTarget.Workspace);
    await config.update('confirmAboveTokens', 0, vscode.ConfigurationTarget.Workspace);
    try {
      const started = Date.now();
      const shown = (await vscode.commands.executeCommand('readerd.readFiles', uri('go2000'), [uri('go2000')])) as ReadCommandOutcome;
      const readMs = Date.now() - started;
      assert.equal(shown.result.files.length, 2000);
      assert.deepEqual(shown.caps, []);
      const state = await waitFor('the view of the read', async () => {
        const v = await view();
        return v?.title === shown.title ? v : undefined;
      });
      const paint = await vscode.commands.executeCommand<PaintReport | undefined>('readerd.resultsViewPainted', state.seq, 30_000);
      assert.ok(paint, 'the page painted the result');
      // A second to let late long tasks be reported, then the page's own count of them.
      await new Promise((r) => setTimeout(r, 1000));
      const stats = await vscode.commands.executeCommand<PageStats | undefined>('readerd.resultsViewAsk', { type: 'stats' });
      assert.ok(stats, 'the page answered');
      // Scrolling to the 1,500th file draws it at once.
      const scrolled = await vscode.commands.executeCommand<PageStats | undefined>('readerd.resultsViewAsk', { type: 'scrollTo', file: 1500 });
      const measured = {
        files: 2000,
        xmlBytes: Buffer.byteLength(shown.result.xml),
        readMs,
        firstPaintMs: paint.firstPaintMs,
        pageMs: paint.pageMs,
        cardsDrawn: paint.cards,
        longTaskSupported: stats.supported,
        longTasksAfterShow: stats.longTasks,
        longTaskStartsAfterShow: stats.longTaskStarts,
        scrollTo1500Ms: scrolled?.ms,
        scrollLongTasks: scrolled?.longTasks,
      };
      fs.writeFileSync(resultsFile('paint'), JSON.stringify(measured, null, 2));
      console.log(`results view, 2,000 Go files: ${JSON.stringify(measured)}`);
      // The target is a first paint within 1 s and no long task past 200 ms (measured: 0.4-0.8 s
      // and none on this 2-core machine, in the results file above and docs/performance.md).
      // The assertions hold what the target rests on, drawn cards that do not grow with the
      // answer, and bounds that the old view (3.6 s and 6.0 s stalls) failed by far but that a
      // loaded machine does not reach: a test that can race blocks a landing like a bug.
      assert.ok(paint.firstPaintMs < 3000, `first paint ${paint.firstPaintMs} ms after the answer (at most 3,000)`);
      assert.ok(paint.cards < 200, `only the cards in view are drawn (${paint.cards})`);
      assert.equal(stats.supported, true, 'the page can count its long tasks');
      const longest = Math.max(0, ...stats.longTasks);
      assert.ok(longest < 1000, `the page's longest task took ${longest} ms (${stats.longTasks.join(', ')})`);
      assert.equal(scrolled?.shows, true, 'file 1,500 is drawn after the scroll');
      assert.ok(Math.max(0, ...(scrolled?.longTasks ?? [])) < 1000, `scrolling: long tasks ${scrolled?.longTasks?.join(', ')}`);
    } finally {
      await config.update('folderMaxFiles', undefined, vscode.ConfigurationTarget.Workspace);
      await config.update('confirmAboveTokens', undefined, vscode.ConfigurationTarget.Workspace);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  test('vscode_reading_the_workspace_folder_itself_gives_relative_paths', async () => {
    const shown = (await vscode.commands.executeCommand('readerd.readFiles', vscode.Uri.file(root()), [vscode.Uri.file(root())])) as ReadCommandOutcome;
    const paths = shown.result.files.map((f) => f.path);
    assert.ok(paths.includes('a.txt') && paths.includes('src/main.c'), paths.join(', '));
    assert.ok(paths.every((p) => !path.isAbsolute(p) && !p.startsWith('./')), `relative paths: ${paths.filter((p) => path.isAbsolute(p)).join(', ')}`);
    assert.ok(!shown.result.xml.includes(root()), 'the XML the model gets has no absolute path');
    assert.ok(!shown.summary.includes(root()), 'nor the summary');
    const state = await waitFor('the view', async () => {
      const v = await view();
      return v?.title === shown.title ? v : undefined;
    });
    assert.ok(!state.html.includes(root()), 'nor the view');
  }, 60_000);

  test('vscode_add_to_chat_attaches_readerds_text_of_a_pdf_not_the_pdf', async () => {
    await vscode.commands.executeCommand('readerd.readFiles', uri('a.txt'), [uri('a.txt'), uri('scan.pdf'), uri('.env')]);
    const attached = (await vscode.commands.executeCommand('readerd.addToChat')) as ChatAttachment;
    assert.deepEqual(attached.files, ['a.txt'], 'a UTF-8 text file as itself');
    assert.deepEqual(attached.asText, ['scan.pdf'], 'the PDF as readerd\'s text of it');
    assert.deepEqual(attached.images, ['scan-page-1.png'], 'its rendered page as a picture');
    assert.deepEqual(attached.skipped, ['.env']);
    assert.equal(attached.opened, true);
    assert.match(attached.message ?? '', /^readerd: added to the chat: 1 file as it is, scan\.pdf as readerd's text, 1 picture \(the chat keeps them for a model that takes images\); not read, so not added: \.env\.$/);
  });

  test('vscode_chat_participant_sends_readerds_text_and_pictures_and_says_so', async () => {
    const api = vscode.extensions.getExtension<ReaderdApi>('readerd.readerd')!.exports;
    const said: string[] = [];
    let sent: vscode.LanguageModelChatMessage[] = [];
    // VS Code's chat hands the participant its request, a stream and the model picked; this
    // offline VS Code has no model, so the model here records what it is sent.
    const model = {
      sendRequest: async (messages: vscode.LanguageModelChatMessage[]) => {
        sent = messages;
        return { text: (async function* () { yield 'an answer'; })() };
      },
    } as unknown as vscode.LanguageModelChat;
    const stream = { progress: () => undefined, reference: () => undefined, markdown: (t: string) => void said.push(t) } as unknown as vscode.ChatResponseStream;
    const request = { prompt: 'What is in @/scan.pdf and @/a.txt?', references: [], command: undefined, model } as unknown as vscode.ChatRequest;
    const token = new vscode.CancellationTokenSource().token;
    await handleChatRequest({
      expand: (text, options) => api.expandMentions(text, options),
      display: (p) => path.relative(root(), p),
      locate: (p) => uri(p),
      log: () => undefined,
    }, request, stream, token);
    assert.equal(said[0], '*readerd sent its reading of `scan.pdf`, `a.txt` with 1 picture.*\n\n');
    const parts = sent[0]!.content as Array<vscode.LanguageModelTextPart | vscode.LanguageModelDataPart>;
    const text = (parts[0] as vscode.LanguageModelTextPart).value;
    assert.match(text, /<Content path='scan\.pdf' type='pdf'/, 'readerd\'s reading of the PDF');
    assert.doesNotMatch(text, /%PDF-/, 'not the PDF file');
    assert.ok(parts[1] instanceof vscode.LanguageModelDataPart && parts[1].mimeType === 'image/png', 'its page as a picture');
    assert.equal(said[1], 'an answer');
  });

  test('vscode_summary_of_a_cut_file_says_what_was_shown', async () => {
    fs.writeFileSync(path.join(root(), 'cut.log'), Array.from({ length: 2500 }, (_, i) => `row ${i + 1}`).join('\n') + '\n');
    try {
      const shown = (await vscode.commands.executeCommand('readerd.readFiles', uri('cut.log'), [uri('cut.log')])) as ReadCommandOutcome;
      assert.match(shown.summary, /^readerd: read 1 of 1 file \(2,000 lines shown, about [\d,]+ tokens\); cut\.log: lines 1–2,000 of 2,500 shown$/);
      assert.doesNotMatch(shown.summary, /2,500 lines|KB/, 'no whole-file size for what was cut');
    } finally {
      fs.rmSync(path.join(root(), 'cut.log'), { force: true });
    }
  });

  test('vscode_daemon_killed_during_a_read_offers_retry', async () => {
    // The daemon dies while it reads: readerd.socket names a socket of this test that starts a
    // real `readerd serve --stdio` per connection and kills it when the first read arrives.
    const config = vscode.workspace.getConfiguration('readerd');
    const binary = config.get<string>('path')!;
    const sock = path.join(os.tmpdir(), `readerd-retry-${process.pid}.sock`);
    fs.rmSync(sock, { force: true });
    let kill = true;
    let killed = 0;
    const children: ChildProcess[] = [];
    const server = net.createServer((conn) => {
      const child = spawn(binary, ['serve', '--stdio'], { stdio: ['pipe', 'pipe', 'ignore'] });
      children.push(child);
      child.stdout!.pipe(conn);
      child.on('exit', () => conn.destroy());
      conn.on('data', (data: Buffer) => {
        if (kill && data.includes('"method":"read"')) {
          kill = false;
          killed++;
          child.kill('SIGKILL');
          return;
        }
        child.stdin!.write(data);
      });
      conn.on('close', () => child.kill());
      conn.on('error', () => child.kill());
    });
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    const api = vscode.extensions.getExtension<{ daemon(): { state: string; target: string } }>('readerd.readerd')!.exports;
    try {
      await config.update('socket', sock, vscode.ConfigurationTarget.Global);
      await waitFor('the extension on the test\'s socket', () => api.daemon().state === 'running' && api.daemon().target.includes(sock), 20_000);
      const failed = await vscode.commands.executeCommand('readerd.readFiles', uri('a.txt'), [uri('a.txt')]);
      assert.equal(killed, 1, 'the daemon was killed during the read');
      assert.equal(failed, undefined, 'the read failed');
      // Retry (the button of the error) reads it again from the daemon that came back.
      await waitFor('the daemon back', () => api.daemon().state === 'running', 20_000);
      const retried = (await vscode.commands.executeCommand('readerd.retryRead')) as ReadCommandOutcome | undefined;
      assert.ok(retried, 'Retry read it');
      assert.deepEqual(retried.result.files.map((f) => [f.path, f.lines]), [['a.txt', 3]]);
    } finally {
      await config.update('socket', undefined, vscode.ConfigurationTarget.Global);
      await waitFor('the extension\'s own daemon back', () => api.daemon().state === 'running' && !api.daemon().target.includes(sock), 20_000);
      server.close();
      children.forEach((c) => c.kill());
      fs.rmSync(sock, { force: true });
    }
  }, 90_000);

  test('vscode_mcp_definitions_follow_the_path_and_a_binary_that_appears', async () => {
    const config = vscode.workspace.getConfiguration('readerd');
    const configured = config.get<string>('path')!;
    const mcp = async (): Promise<{ binary?: string; fired: number }> => vscode.commands.executeCommand('readerd.mcpState');
    const start = await mcp();
    assert.equal(start.binary, configured);
    const dir = fs.mkdtempSync(path.join(path.dirname(root()), 'later-'));
    const later = path.join(dir, 'readerd');
    const api = vscode.extensions.getExtension<{ daemon(): { state: string; pid?: number } }>('readerd.readerd')!.exports;
    try {
      // readerd.path names a binary that is not there yet: the definitions change (to none).
      await config.update('path', later, vscode.ConfigurationTarget.Global);
      const missing = await waitFor('definitions without a binary', async () => {
        const s = await mcp();
        return s.fired > start.fired && s.binary === undefined ? s : undefined;
      });
      // readerd appears there (installed mid-session): the provider says so, no reload needed.
      fs.copyFileSync(configured, later);
      fs.chmodSync(later, 0o755);
      const appeared = await waitFor('definitions with the new binary', async () => {
        const s = await mcp();
        return s.binary === later ? s : undefined;
      }, 10_000);
      assert.ok(appeared.fired > missing.fired, 'onDidChangeMcpServerDefinitions fired when readerd appeared');
    } finally {
      await config.update('path', configured, vscode.ConfigurationTarget.Global);
      await waitFor('the configured binary back', async () => (await mcp()).binary === configured);
      await vscode.commands.executeCommand('readerd.restart');
      await waitFor('the daemon running', () => api.daemon().state === 'running', 20_000);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
}
