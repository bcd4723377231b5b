// Runs the extension in a real VS Code: code-server (VS Code served over HTTP) driven by Debian's
// Chromium through playwright-core. Three phases:
//   1. the in-VS-Code suite (out/test/suite/index.js) with the extension loaded from its folder,
//      through the `payload` parameter (extensionDevelopmentPath + extensionTestsPath);
//   2. the packaged .vsix installed into code-server, and a person's use of it: the command
//      palette, "readerd: Read Files...", the quick pick, a screenshot of the result;
//   3. the multi-root suite (out/test/suite/multiRoot.js) in a workspace of two folders opened
//      from a .code-workspace file.
// Prints one `ok`/`not ok` line per test. Exit status 0 only when every test passed.
//
// Environment: CODE_SERVER (…/node_modules/code-server), PLAYWRIGHT (a folder whose node_modules
// holds playwright-core), READERD (the binary), VSIX (the package to install), E2E_DIR (scratch
// folder, emptied), SCREENSHOTS (folder for the PNGs), CHROMIUM (default /usr/bin/chromium).

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as net from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const extensionDir = path.resolve(here, '..', '..');
const env = (name, fallback) => {
  const v = process.env[name] ?? fallback;
  if (v === undefined) {
    throw new Error(`${name} is not set`);
  }
  return v;
};
const codeServerDir = env('CODE_SERVER');
const readerd = env('READERD');
const vsix = env('VSIX');
const scratch = env('E2E_DIR');
const screenshots = env('SCREENSHOTS');
const chromiumPath = env('CHROMIUM', '/usr/bin/chromium');
const { chromium } = createRequire(path.join(env('PLAYWRIGHT'), 'package.json'))('playwright-core');

// No extension gallery: code-server would otherwise query one on the internet.
const offline = { EXTENSIONS_GALLERY: '{}' };

const outcomes = [];
function report(name, ok, detail = '') {
  outcomes.push({ name, ok });
  console.log(`${ok ? 'ok' : 'not ok'} - ${name}${detail ? `\n${detail.replace(/^/gm, '    ')}` : ''}`);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2));
}

/** A one-page PDF without text (a blue box), as a scan without OCR: readerd renders its page. */
function scanPdf() {
  const stream = '0.2 0.4 0.8 rg 20 20 160 60 re f';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
  ];
  let out = '%PDF-1.4\n';
  const offsets = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return out;
}

/** The vision endpoint of the tests (tests/vision-server.py), once started. */
const vision = { dir: '', port: 0, child: undefined };
/** The key the suite stores in SecretStorage: it must reach the endpoint, and no log. */
const VISION_KEY = 'sk-e2e-vision-key-4f1c9a';

/** The user's settings.json of the runs. */
function userSettings() {
  return {
    'readerd.path': readerd,
    'chat.disableAIFeatures': false,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.ignoreRecommendations': true,
    'security.workspace.trust.enabled': false,
    'window.commandCenter': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
  };
}

/** The workspace's .vscode/settings.json, with `extra` settings. */
function workspaceSettings(extra = {}) {
  return {
    'files.exclude': { '**/*.tmp': true, '**/.vscode': true, '**/.readerd-e2e-results.json': true },
    'readerd.vision.baseUrl': `http://127.0.0.1:${vision.port}/ok/v1`,
    'readerd.vision.model': 'e2e-vision-model',
    ...extra,
  };
}

/** Starts tests/vision-server.py on 127.0.0.1; it records each request it receives in vision.dir. */
async function startVisionServer() {
  vision.dir = path.join(scratch, 'vision-requests');
  fs.mkdirSync(vision.dir, { recursive: true });
  vision.child = spawn('python3', [path.join(extensionDir, '..', 'tests', 'vision-server.py'), vision.dir], { stdio: 'ignore', detached: true });
  const deadline = Date.now() + 10_000;
  while (!fs.existsSync(path.join(vision.dir, 'port'))) {
    if (Date.now() > deadline || vision.child.exitCode !== null) {
      throw new Error('tests/vision-server.py did not start');
    }
    await sleep(100);
  }
  vision.port = Number(fs.readFileSync(path.join(vision.dir, 'port'), 'utf8').trim());
}

/** Files under `dir` (recursively) that contain `needle`. */
function filesContaining(dir, needle) {
  const out = [];
  if (!fs.existsSync(dir)) {
    return out;
  }
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    if (entry.isFile() && fs.readFileSync(file).includes(needle)) {
      out.push(file);
    }
  }
  return out;
}

/** The workspace the tests read. */
function makeWorkspace(dir) {
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'docs', 'deeper'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'a.txt'), 'alpha\nbeta\ngamma\n');
  fs.writeFileSync(path.join(dir, 'src', 'main.c'), '#include <stdio.h>\n\nint main(void) {\n  puts("hello from the workspace");\n  return 0;\n}\n');
  fs.writeFileSync(path.join(dir, 'docs', 'my file.md'), '# Title\n\nSpaces in the name.\n');
  fs.writeFileSync(path.join(dir, 'docs', 'notes.txt'), 'note one\nnote two\n');
  fs.writeFileSync(path.join(dir, 'docs', 'skip.tmp'), 'excluded by files.exclude\n');
  fs.writeFileSync(path.join(dir, 'docs', 'deeper', 'hidden.txt'), 'not read: folders give one level\n');
  fs.copyFileSync(path.join(extensionDir, '..', 'samples', 'readerd.png'), path.join(dir, 'logo.png'));
  fs.writeFileSync(path.join(dir, '.env'), 'API_KEY=not-for-the-model\n');
  fs.symlinkSync('/etc/hostname', path.join(dir, 'escape.txt'));
  writeJson(path.join(dir, '.vscode', 'settings.json'), workspaceSettings());
  // For @-mention completion: a prompt to write in, and files the .gitignore leaves out.
  fs.writeFileSync(path.join(dir, 'prompt.md'), '# Prompt\n\n');
  fs.writeFileSync(path.join(dir, '.gitignore'), 'build/\n*.log\n');
  fs.mkdirSync(path.join(dir, 'build'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'build', 'out.txt'), 'built\n');
  fs.writeFileSync(path.join(dir, 'debug.log'), 'log\n');
  fs.writeFileSync(path.join(dir, 'scan.pdf'), scanPdf());
}

/** A multi-root workspace: two folders and the .code-workspace file; a third folder to add. */
function makeMultiRoot(dir) {
  const app = path.join(dir, 'app');
  const lib = path.join(dir, 'lib');
  fs.mkdirSync(path.join(app, 'src'), { recursive: true });
  fs.mkdirSync(path.join(lib, 'docs'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'extra'), { recursive: true });
  fs.writeFileSync(path.join(app, 'a.txt'), 'alpha\nbeta\ngamma\n');
  fs.writeFileSync(path.join(app, 'src', 'main.c'), 'int main(void) {\n  return 0;\n}\n');
  fs.writeFileSync(path.join(lib, 'b.txt'), 'one\ntwo\n');
  fs.writeFileSync(path.join(lib, 'only-in-lib.txt'), 'only here\n');
  fs.writeFileSync(path.join(lib, 'docs', 'one.md'), '# One\n');
  fs.writeFileSync(path.join(lib, 'docs', 'two.md'), '# Two\n');
  fs.writeFileSync(path.join(lib, '.env'), 'API_KEY=not-for-the-model\n');
  fs.copyFileSync(path.join(extensionDir, '..', 'samples', 'readerd.png'), path.join(lib, 'logo.png'));
  fs.symlinkSync(path.join(lib, 'b.txt'), path.join(app, 'link-to-lib.txt'));
  fs.writeFileSync(path.join(dir, 'extra', 'x.txt'), 'extra\n');
  const file = path.join(dir, 'multi.code-workspace');
  writeJson(file, { folders: [{ path: 'app' }, { path: 'lib', name: 'Library' }], settings: {} });
  return file;
}

function runNode(args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${out}`))));
  });
}

async function startCodeServer(port, dirs, workspace, logFile, { smokeTestDriver }) {
  const log = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [
    path.join(codeServerDir, 'out', 'node', 'entry.js'),
    '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none',
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
    '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions,
    '--reconnection-grace-time', '5',
    // The smoke-test driver reports the suite's end to the page, but also hides notification
    // toasts: on for the suite, off for the person's view.
    ...(smokeTestDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
    workspace,
  ], {
    stdio: ['ignore', log, log],
    detached: true,
    env: { ...process.env, ...dirs.xdg, ...offline, READERD_E2E_RESULTS: dirs.results, READERD_E2E_VISION_DIR: vision.dir, READERD_E2E_VISION_KEY: VISION_KEY },
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.status === 200) {
        break;
      }
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`code-server did not start; see ${logFile}`);
    }
    await sleep(200);
  }
  return child;
}

function stopProcessGroup(child) {
  if (!child || child.exitCode !== null) {
    return Promise.resolve();
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return Promise.resolve();
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }, 5000);
  return exited.finally(() => clearTimeout(timer));
}

async function launchBrowser(profile) {
  return chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1600, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * Phases 1 and 3: a suite in VS Code. `suite.module` is the test module under out/test/suite,
 * `suite.open` the query that opens the workspace (`folder=...` or `workspace=...`),
 * `suite.name` the name its outcomes are written under (see test/suite/harness.ts).
 */
async function runSuite(base, dirs, browserLog, suite) {
  const remote = (p) => `vscode-remote://${base.host}${p}`;
  const payload = [
    ['extensionDevelopmentPath', remote(extensionDir)],
    ['extensionTestsPath', remote(path.join(extensionDir, 'out', 'test', 'suite', suite.module))],
  ];
  const context = await launchBrowser(path.join(scratch, `chromium-${suite.name}`));
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base.origin });
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => fs.appendFileSync(browserLog, `[${suite.name}] ${m.type()}: ${m.text()}\n`));
    let resolveExit;
    const exited = new Promise((resolve) => (resolveExit = resolve));
    await page.exposeFunction('codeAutomationExit', (code) => resolveExit(code));
    await page.goto(`${base.origin}/?${suite.open}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
    let timer;
    const code = await Promise.race([exited, new Promise((r) => (timer = setTimeout(() => r('timeout'), 420_000)))]);
    clearTimeout(timer);
    let results = [];
    try {
      results = JSON.parse(fs.readFileSync(dirs.results.replace(/\.json$/, `-${suite.name}.json`), 'utf8'));
    } catch {
      // the suite never wrote: reported below
    }
    for (const r of results) {
      report(r.name, r.ok, r.ok ? '' : r.error);
    }
    const paint = dirs.results.replace(/\.json$/, '-paint.json');
    if (suite.name === 'single' && fs.existsSync(paint)) {
      console.log(`# results view, measured in VS Code: ${fs.readFileSync(paint, 'utf8').replace(/\s+/g, ' ')}`);
    }
    if (results.length === 0) {
      report(`vscode_suite_${suite.name}_ran`, false, `the suite reported nothing (exit ${code}); see ${browserLog} and the server log`);
    } else if (code !== 0 && results.every((r) => r.ok)) {
      report(`vscode_suite_${suite.name}_exit`, false, `VS Code reported exit ${code} though every test passed`);
    }
  } finally {
    await context.close();
  }
}

/** Runs a command from the palette like a person: F1, type its title, pick the row, Enter. */
async function runFromPalette(page, title) {
  for (let attempt = 0; attempt < 10; attempt++) {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill(`>${title}`);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    try {
      await row.waitFor({ state: 'visible', timeout: 2_000 });
      await page.keyboard.press('Enter');
      return;
    } catch {
      // Contributed commands appear a few seconds after the workbench: try again.
      await sleep(1000);
    }
  }
  throw new Error(`"${title}" never appeared in the command palette`);
}

/** Checks the item of a multi-select quick pick whose row shows `label`. */
async function checkItem(page, filterText, label) {
  const input = page.locator('.quick-input-widget input');
  await input.fill(filterText);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ state: 'visible', timeout: 10_000 });
  await row.locator('.quick-input-list-checkbox, input[type=checkbox], .monaco-checkbox').first().click();
}

/** Waits until a frame of the page shows the image `alt` loaded; returns its natural width. */
async function waitForImage(page, alt, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      try {
        const width = await frame.evaluate((a) => {
          const img = [...document.querySelectorAll('img')].find((i) => i.alt === a);
          return img && img.complete ? img.naturalWidth : 0;
        }, alt);
        if (width > 0) {
          return width;
        }
      } catch {
        // a frame that went away or is not ready
      }
    }
    await sleep(250);
  }
  const urls = page.frames().map((f) => f.url().slice(0, 120)).join('\n');
  throw new Error(`no frame showed the image ${alt}; frames:\n${urls}`);
}

/** Phase 2: the installed .vsix, used through the UI. */
async function runUi(base, dirs, browserLog) {
  const name = 'vscode_ui_command_palette_read_files_screenshot';
  const context = await launchBrowser(path.join(scratch, 'chromium-ui'));
  const shot = path.join(screenshots, 'read-files.png');
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base.origin });
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => fs.appendFileSync(browserLog, `[ui] ${m.type()}: ${m.text()}\n`));
    await page.goto(`${base.origin}/?folder=${encodeURIComponent(dirs.workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
    // The extension activates with its first command (the palette lists it from package.json).
    await runFromPalette(page, 'readerd: Read Files...');
    await page.locator('.quick-input-widget .quick-input-list .monaco-list-row').first().waitFor({ state: 'visible', timeout: 15_000 });
    await checkItem(page, 'main.c', 'main.c');
    await checkItem(page, 'logo', 'logo.png');
    await checkItem(page, 'notes', 'notes.txt');
    await page.locator('.quick-input-widget input').fill('');
    await page.keyboard.press('Enter');
    // The plan passes readerd.confirmAboveTokens (20 here): it is shown, and asked about.
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 20_000 });
    const question = (await dialog.innerText()).replace(/\u00a0/g, ' ');
    if (!/readerd: read 3 files \([0-9.]+ [KM]?B, about [0-9,]+ tokens\)\?/.test(question) || !question.includes('readerd.confirmAboveTokens (20 tokens)')) {
      throw new Error(`the plan's question says: ${question}`);
    }
    fs.mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: path.join(screenshots, 'read-plan.png') });
    await dialog.locator('.monaco-button', { hasText: 'Read' }).first().click();
    // One results view opens beside: the files, the picture inline, the totals.
    await page.locator('.tabs-container .tab', { hasText: 'readerd: 3 files' }).waitFor({ state: 'visible', timeout: 20_000 });
    const imageSize = await waitForImage(page, 'logo.png', 20_000);
    if (imageSize !== 48) {
      throw new Error(`the results view shows logo.png ${imageSize} px wide, not 48`);
    }
    let view = await resultsFrame(page, 'docs/notes.txt', 20_000);
    const viewText = await view.evaluate(() => document.body.innerText);
    for (const want of ['src/main.c', 'logo.png', 'docs/notes.txt', '3 files: 3 read', 'Copy as Prompt Context', 'Show Raw XML']) {
      if (!viewText.includes(want)) {
        throw new Error(`the results view does not show "${want}":\n${viewText.slice(0, 800)}`);
      }
    }
    if (await page.locator('.tabs-container .tab', { hasText: 'ReadResults-' }).count() !== 0) {
      throw new Error('a read still opens an XML tab');
    }
    // The notification that sums up the read.
    await page.locator('.notification-toast', { hasText: 'readerd: read 3 of 3 files' }).first()
      .waitFor({ state: 'visible', timeout: 10_000 });
    // The status bar item, there since the command activated the extension, shows the daemon.
    await page.locator('.statusbar-item', { hasText: 'readerd' }).first().waitFor({ state: 'visible', timeout: 10_000 });
    fs.mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: shot });
    report(name, true, `screenshots: ${shot}, ${path.join(screenshots, 'read-plan.png')}`);
    await runRawXmlAndCopyUi(page);
    await runThemesUi(page, dirs);
    await runAddToChatUi(page);
    await runReadMoreUi(page, dirs);
    await runCappedUi(page, dirs);
    await runMentionUi(page);
    await runChatUi(page);
    await runMcpUi(page);
    await runVisionUi(page);
    await runFirstRunUi(page, dirs);
  } catch (error) {
    try {
      const page = context.pages()[0];
      fs.mkdirSync(screenshots, { recursive: true });
      await page?.screenshot({ path: path.join(screenshots, 'read-files-failure.png') });
    } catch {
      // no page to show
    }
    report(name, false, `${error.stack ?? error}\nscreenshot: ${path.join(screenshots, 'read-files-failure.png')}`);
  } finally {
    await context.close();
  }
}

/**
 * The results view in the Dark Modern, Light Modern and Dark High Contrast themes: its
 * background follows each (screenshots), as its colours are the theme's variables.
 */
async function runThemesUi(page, dirs) {
  const name = 'vscode_ui_results_view_themes_screenshots';
  try {
    await page.locator('.tabs-container .tab', { hasText: 'readerd: 3 files' }).first().click();
    // Dark, light and high-contrast themes: the view follows (its colours are the theme's variables).
    const view = await resultsFrame(page, 'docs/notes.txt', 20_000);
    const background = () => view.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const themes = {};
    let before = await background();
    for (const [file, theme] of [['results-dark.png', 'Dark Modern'], ['results-light.png', 'Light Modern'], ['results-high-contrast.png', 'Dark High Contrast']]) {
      await pickTheme(page, dirs, theme, async () => (await background()) !== before);
      before = themes[theme] = await background();
      await sleep(500);
      await page.screenshot({ path: path.join(screenshots, file) });
    }
    if (new Set(Object.values(themes)).size !== 3) {
      throw new Error(`the results view did not follow the theme: ${JSON.stringify(themes)}`);
    }
    report(name, true, `backgrounds: ${JSON.stringify(themes)}; screenshots: results-dark.png, results-light.png, results-high-contrast.png`);
  } catch (error) {
    await page.screenshot({ path: path.join(screenshots, 'results-theme-failure.png') }).catch(() => undefined);
    report(name, false, `${error.stack ?? error}\nscreenshot: ${path.join(screenshots, 'results-theme-failure.png')}`);
  } finally {
    writeJson(path.join(dirs.workspace, '.vscode', 'settings.json'), workspaceSettings({ 'readerd.confirmAboveTokens': 20 }));
    await pickTheme(page, dirs, 'Light Modern', async () => true).catch(() => undefined);
  }
}

/**
 * From the results view: the raw XML by keyboard (focus its button, Enter), then Copy as Prompt
 * Context: asked past readerd.confirmAboveTokens, and the message names the image left out.
 */
async function runRawXmlAndCopyUi(page) {
  const name = 'vscode_ui_results_raw_xml_and_copy';
  try {
    let view = await resultsFrame(page, 'docs/notes.txt', 20_000);
    // The raw XML, by keyboard: focus its button, Enter.
    await view.locator('button[data-action=raw]').focus();
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab', { hasText: /ReadResults-\d+\.xml/ }).waitFor({ state: 'visible', timeout: 20_000 });
    const lines = page.locator('.monaco-editor .view-lines').filter({ hasText: 'ReadResults' }).first();
    await lines.waitFor({ state: 'visible', timeout: 20_000 });
    const text = (await lines.innerText()).replace(/\u00a0/g, ' ');
    const want = ["path='src/main.c'", "path='logo.png'", "path='docs/notes.txt'"];
    const missing = want.filter((w) => !text.includes(w));
    if (missing.length > 0) {
      throw new Error(`the XML editor does not show ${missing.join(', ')}:\n${text.slice(0, 800)}`);
    }
    await page.screenshot({ path: path.join(screenshots, 'results-raw-xml.png') });
    // "Copy as Prompt Context" in the view: past readerd.confirmAboveTokens (20) it asks, then
    // says the image is not on the clipboard.
    await page.locator('.tabs-container .tab', { hasText: 'readerd: 3 files' }).click();
    view = await resultsFrame(page, 'docs/notes.txt', 20_000);
    await view.locator('button[data-action=copy]').click();
    const ask = page.locator('.monaco-dialog-box');
    await ask.waitFor({ state: 'visible', timeout: 20_000 });
    const askText = (await ask.innerText()).replace(/\u00a0/g, ' ');
    if (!/readerd: copy about [0-9,]+ tokens of prompt context\?/.test(askText)) {
      throw new Error(`the copy's question says: ${askText}`);
    }
    await page.screenshot({ path: path.join(screenshots, 'copy-confirm.png') });
    await ask.locator('.monaco-button', { hasText: 'Copy' }).first().click();
    await page.locator('.notification-toast', { hasText: '1 image not copied: the clipboard holds text' }).first()
      .waitFor({ state: 'visible', timeout: 10_000 });
    await page.screenshot({ path: path.join(screenshots, 'copy-images-left-out.png') });
    let clip = '';
    for (let i = 0; i < 40 && !clip.startsWith('<ReadResults'); i++) {
      await sleep(100);
      clip = await page.evaluate(() => navigator.clipboard.readText()).catch(() => '');
    }
    if (!clip.startsWith('<ReadResults') || !clip.includes("<Content path='src/main.c'") || !clip.includes('<!-- 1 image not included (copied as text): logo.png -->')) {
      throw new Error(`the clipboard does not hold the XML after "Copy as Prompt Context": ${clip.slice(0, 300)}`);
    }
    report(name, true, 'screenshots: results-raw-xml.png, copy-confirm.png, copy-images-left-out.png');
  } catch (error) {
    await page.screenshot({ path: path.join(screenshots, 'results-copy-failure.png') }).catch(() => undefined);
    report(name, false, `${error.stack ?? error}\nscreenshot: ${path.join(screenshots, 'results-copy-failure.png')}`);
  } finally {
    await page.keyboard.press('Escape');
  }
}

/**
 * Chooses a colour theme as a person does: "Preferences: Color Theme", its name, Enter, with the
 * focus first taken out of the webview (a quick pick closes when focus goes back into it). When
 * `applied()` does not turn true within 10 s, the workspace's settings name the theme instead.
 */
async function pickTheme(page, dirs, theme, applied) {
  await page.keyboard.press('Escape');
  await page.locator('.part.sidebar').click({ position: { x: 150, y: 500 } }).catch(() => undefined);
  try {
    await runFromPalette(page, 'Preferences: Color Theme');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Modern' }).first().waitFor({ state: 'visible', timeout: 10_000 });
    await sleep(300);
    await page.locator('.quick-input-widget input').fill(theme);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: theme }).first().waitFor({ state: 'visible', timeout: 10_000 });
    await page.keyboard.press('Enter');
  } catch {
    await page.keyboard.press('Escape');
  }
  for (const how of ['picker', 'settings']) {
    if (how === 'settings') {
      writeJson(path.join(dirs.workspace, '.vscode', 'settings.json'), workspaceSettings({ 'readerd.confirmAboveTokens': 20, 'workbench.colorTheme': theme.startsWith('Dark High') ? 'Default High Contrast' : `Default ${theme}` }));
    }
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (await applied()) {
        return how;
      }
      await sleep(250);
    }
  }
  throw new Error(`the theme ${theme} was not applied, neither picked nor set in the workspace's settings`);
}

/** The frame of the results view once it shows `text`. */
async function resultsFrame(page, text, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      try {
        if (await frame.evaluate((t) => !!document.querySelector('section.file') && document.body.innerText.includes(t), text)) {
          return frame;
        }
      } catch {
        // a frame that went away or is not ready
      }
    }
    await sleep(250);
  }
  throw new Error(`no results view shows "${text}"`);
}

/**
 * "Add to Chat" in the results view: VS Code's chat opens with the files read attached, the
 * picture as an image (screenshot).
 */
async function runAddToChatUi(page) {
  const name = 'vscode_ui_results_add_to_chat_screenshot';
  const shot = path.join(screenshots, 'add-to-chat.png');
  try {
    const view = await resultsFrame(page, 'docs/notes.txt', 20_000);
    await view.locator('button[data-action=chat]').click();
    const chips = page.locator('.chat-attached-context .chat-attached-context-attachment, .chat-attached-context-attachment');
    const deadline = Date.now() + 20_000;
    let labels = [];
    while (Date.now() < deadline) {
      labels = (await chips.allInnerTexts().catch(() => [])).map((t) => t.replace(/\s+/g, ' ').trim());
      if (labels.some((l) => l.includes('notes.txt')) && labels.some((l) => l.includes('main.c'))) {
        break;
      }
      await sleep(250);
    }
    await sleep(500);
    await page.screenshot({ path: shot });
    // The text files are attached. The picture is handed over as an image file too, but VS Code's
    // chat keeps an image only for a model that takes images, and this offline VS Code has no
    // model at all: its chip is reported, not required.
    if (!labels.some((l) => l.includes('notes.txt')) || !labels.some((l) => l.includes('main.c'))) {
      throw new Error(`the chat's attachments are: ${labels.join(' | ') || 'none'}`);
    }
    const image = labels.some((l) => l.includes('logo.png')) ? 'attached' : 'not kept by this chat (no model that takes images)';
    report(name, true, `attached: ${labels.join(' | ')}; logo.png: ${image}\nscreenshot: ${shot}`);
  } catch (error) {
    await page.screenshot({ path: shot }).catch(() => undefined);
    report(name, false, `${error.stack ?? error}\nscreenshot: ${shot}`);
  } finally {
    await page.keyboard.press('Escape');
  }
}

/**
 * A read that cuts a file: the view says where and "Read more" reads on from the line the
 * daemon named (screenshot); after a reload of the window the view is back (screenshot).
 */
async function runReadMoreUi(page, dirs) {
  const name = 'vscode_ui_results_read_more_and_reload';
  const shot = path.join(screenshots, 'results-read-more.png');
  const restoredShot = path.join(screenshots, 'results-restored.png');
  try {
    fs.writeFileSync(path.join(dirs.workspace, 'big.txt'), Array.from({ length: 2500 }, (_, i) => `row ${i + 1}`).join('\n') + '\n');
    await runFromPalette(page, 'readerd: Read Files...');
    await checkItem(page, 'big.txt', 'big.txt');
    await page.locator('.quick-input-widget input').fill('');
    await page.keyboard.press('Enter');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 20_000 });
    await dialog.locator('.monaco-button', { hasText: 'Read' }).first().click();
    let view = await resultsFrame(page, 'Read more: from line 2,001', 20_000);
    const cut = await view.evaluate(() => document.body.innerText);
    if (!cut.includes('Cut: lines 1–2,000 of 2,500 shown')) {
      throw new Error(`the view does not say where big.txt was cut:\n${cut.slice(0, 600)}`);
    }
    await view.locator('button[data-action=more]').click();
    await page.locator('.tabs-container .tab', { hasText: 'big.txt, from line 2001' }).waitFor({ state: 'visible', timeout: 20_000 });
    view = await resultsFrame(page, 'row 2500', 20_000);
    const more = await view.evaluate(() => [...document.querySelectorAll('.row .ln')].map((n) => n.textContent));
    if (more[0] !== '2001' || more[more.length - 1] !== '2500') {
      throw new Error(`"Read more" shows lines ${more[0]} to ${more[more.length - 1]}, not 2001 to 2500`);
    }
    // The continuation is shown from its top, with a way back.
    const top = await view.evaluate(() => window.scrollY);
    if (top !== 0) {
      throw new Error(`"Read more" shows the view scrolled to ${top}, not its top`);
    }
    const back = view.locator('button[data-action=back]');
    if ((await back.innerText()).trim() !== 'Back to 1 file') {
      throw new Error(`the way back says: ${await back.innerText()}`);
    }
    await page.screenshot({ path: shot });
    await back.click();
    await page.locator('.tabs-container .tab', { hasText: 'readerd: 1 file' }).waitFor({ state: 'visible', timeout: 20_000 });
    view = await resultsFrame(page, 'Read more: from line 2,001', 20_000);
    await page.screenshot({ path: path.join(screenshots, 'results-back.png') });
    await view.locator('button[data-action=more]').click();
    await page.locator('.tabs-container .tab', { hasText: 'big.txt, from line 2001' }).waitFor({ state: 'visible', timeout: 20_000 });
    await resultsFrame(page, 'row 2500', 20_000);
    // A reload of the window restores the view, with the same result: VS Code's own Reload
    // Window, which saves the views' state before it goes (a reload of the page alone may come
    // before that save and restore an older view).
    await Promise.all([page.waitForEvent('load', { timeout: 60_000 }), runFromPalette(page, 'Developer: Reload Window')]);
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
    await page.locator('.tabs-container .tab', { hasText: 'big.txt, from line 2001' }).waitFor({ state: 'visible', timeout: 30_000 });
    await page.locator('.tabs-container .tab', { hasText: 'big.txt, from line 2001' }).click();
    await resultsFrame(page, 'row 2500', 30_000);
    await sleep(500);
    await page.screenshot({ path: restoredShot });
    report(name, true, `screenshots: ${shot}, results-back.png, ${restoredShot}`);
  } catch (error) {
    await page.screenshot({ path: path.join(screenshots, 'results-read-more-failure.png') }).catch(() => undefined);
    report(name, false, `${error.stack ?? error}\nscreenshot: ${path.join(screenshots, 'results-read-more-failure.png')}`);
  }
}

/**
 * A folder of 600 files from the palette: the view says "many/: 500 of 600 files" with Read the
 * rest (screenshots in the Light, Dark and High Contrast themes), and Read the rest shows files
 * 501-600 with a way back (screenshot).
 */
async function runCappedUi(page, dirs) {
  const name = 'vscode_ui_capped_folder_read_the_rest_themes';
  const many = path.join(dirs.workspace, 'many');
  fs.mkdirSync(many, { recursive: true });
  for (let i = 0; i < 600; i++) {
    fs.writeFileSync(path.join(many, `f${String(i).padStart(3, '0')}.go`), `package many\n\n// F${i} returns ${i}.\nfunc F${i}() int {\n\treturn ${i}\n}\n`);
  }
  const readIt = async () => {
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 20_000 });
    await dialog.locator('.monaco-button', { hasText: 'Read' }).first().click();
  };
  try {
    await runFromPalette(page, 'readerd: Read Files...');
    await page.locator('.quick-input-widget .quick-input-list .monaco-list-row').first().waitFor({ state: 'visible', timeout: 15_000 });
    const input = page.locator('.quick-input-widget input');
    await input.fill('many/');
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'many/' }).filter({ hasText: 'folder' }).first();
    await row.waitFor({ state: 'visible', timeout: 10_000 });
    const promise = (await row.innerText()).replace(/\s+/g, ' ');
    if (!promise.includes('600 files: 500 read (readerd.folderMaxFiles)')) {
      throw new Error(`the quick pick promises: ${promise}`);
    }
    await page.screenshot({ path: path.join(screenshots, 'quick-pick-capped.png') });
    await row.locator('.quick-input-list-checkbox, input[type=checkbox], .monaco-checkbox').first().click();
    await input.fill('');
    await page.keyboard.press('Enter');
    await readIt();
    let view = await resultsFrame(page, 'many/: 500 of 600 files', 30_000);
    const text = await view.evaluate(() => document.body.innerText);
    if (!text.includes('Read the rest (100 files)') || !text.includes('readerd.folderMaxFiles: 500')) {
      throw new Error(`the view does not show the cap in the open:\n${text.slice(0, 600)}`);
    }
    const background = () => view.evaluate(() => getComputedStyle(document.body).backgroundColor);
    let before = await background();
    await sleep(300);
    await page.screenshot({ path: path.join(screenshots, 'capped-light.png') });
    for (const [file, theme] of [['capped-dark.png', 'Dark Modern'], ['capped-high-contrast.png', 'Dark High Contrast']]) {
      await pickTheme(page, dirs, theme, async () => (await background()) !== before);
      before = await background();
      await sleep(500);
      await page.screenshot({ path: path.join(screenshots, file) });
    }
    await pickTheme(page, dirs, 'Light Modern', async () => (await background()) !== before).catch(() => undefined);
    view = await resultsFrame(page, 'many/: 500 of 600 files', 20_000);
    await view.locator('button[data-action=rest]').click();
    await readIt();
    await page.locator('.tabs-container .tab', { hasText: 'files 501–600 of 600' }).waitFor({ state: 'visible', timeout: 30_000 });
    view = await resultsFrame(page, 'many/f500.go', 20_000);
    const rest = await view.evaluate(() => document.body.innerText);
    if (!rest.includes('Back to 500 files')) {
      throw new Error(`the rest has no way back:\n${rest.slice(0, 600)}`);
    }
    await sleep(300);
    await page.screenshot({ path: path.join(screenshots, 'capped-rest.png') });
    report(name, true, 'screenshots: quick-pick-capped.png, capped-light.png, capped-dark.png, capped-high-contrast.png, capped-rest.png');
  } catch (error) {
    await page.screenshot({ path: path.join(screenshots, 'capped-failure.png') }).catch(() => undefined);
    report(name, false, `${error.stack ?? error}\nscreenshot: ${path.join(screenshots, 'capped-failure.png')}`);
  } finally {
    fs.rmSync(many, { recursive: true, force: true });
    writeJson(path.join(dirs.workspace, '.vscode', 'settings.json'), workspaceSettings({ 'readerd.confirmAboveTokens': 20 }));
  }
}

/**
 * The quick pick offers folders and leaves out what readerd.exclude refuses (screenshot); a
 * readerd.path that is not readerd ends in one error with "Locate readerd..." and "Open Settings"
 * (screenshot), and "Open Settings" opens the Remote tab, where the setting lives in this remote
 * window (screenshot).
 */
async function runFirstRunUi(page, dirs) {
  const name = 'vscode_ui_first_run_and_quick_pick_screenshots';
  const pickShot = path.join(screenshots, 'quick-pick-folders.png');
  const failShot = path.join(screenshots, 'first-run-failure.png');
  const settingsShot = path.join(screenshots, 'first-run-settings.png');
  const machine = path.join(dirs.userData, 'Machine', 'settings.json');
  const saved = fs.readFileSync(machine, 'utf8');
  try {
    await runFromPalette(page, 'readerd: Read Files...');
    const input = page.locator('.quick-input-widget input');
    await page.locator('.quick-input-widget .quick-input-list .monaco-list-row').first().waitFor({ state: 'visible', timeout: 15_000 });
    await input.fill('src');
    const folderRow = page.locator('.quick-input-list .monaco-list-row', { hasText: 'src/' }).filter({ hasText: 'folder' }).first();
    await folderRow.waitFor({ state: 'visible', timeout: 10_000 });
    const title = await page.locator('.quick-input-widget .quick-input-title').innerText().catch(() => '');
    if (!/readerd\.exclude refuses, \d+ \.gitignore leaves out, 1 link out of the workspace not listed/.test(title)) {
      throw new Error(`the quick pick's title does not say what it leaves out: ${title}`);
    }
    fs.mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: pickShot });
    // Not offered: what readerd.exclude refuses, what .gitignore leaves out, a link always refused.
    for (const left of ['.env', 'debug.log', 'out.txt', 'escape.txt']) {
      await input.fill(left);
      await sleep(500);
      const rows = await page.locator('.quick-input-list .monaco-list-row', { hasText: left }).count();
      if (rows !== 0) {
        throw new Error(`the quick pick offers ${left} (${rows} rows)`);
      }
    }
    await page.keyboard.press('Escape');
    // A path that is not readerd: the daemon restarts with it, fails three times and gives up.
    writeJson(machine, { 'readerd.path': '/bin/true' });
    const toast = page.locator('.notification-toast', { hasText: 'stopped restarting after 3 failures' }).first();
    await toast.waitFor({ state: 'visible', timeout: 30_000 });
    for (const button of ['Locate readerd...', 'Open Settings']) {
      if ((await toast.locator('.monaco-button', { hasText: button }).count()) === 0) {
        throw new Error(`the error has no "${button}" button: ${await toast.innerText()}`);
      }
    }
    await page.screenshot({ path: failShot });
    await toast.locator('.monaco-button', { hasText: 'Open Settings' }).first().click();
    const remoteTab = page.locator('.settings-editor .settings-tabs-widget .action-label.checked', { hasText: /Remote/ }).first();
    await remoteTab.waitFor({ state: 'visible', timeout: 20_000 });
    await page.locator('.settings-editor .setting-item-contents', { hasText: 'Path' }).first().waitFor({ state: 'visible', timeout: 20_000 });
    await page.screenshot({ path: settingsShot });
    report(name, true, `screenshots: ${pickShot}, ${failShot}, ${settingsShot}`);
  } catch (error) {
    await page.screenshot({ path: path.join(screenshots, 'first-run-ui-failure.png') }).catch(() => undefined);
    report(name, false, `${error.stack ?? error}\nscreenshot: ${path.join(screenshots, 'first-run-ui-failure.png')}`);
  } finally {
    fs.writeFileSync(machine, saved);
  }
}

/**
 * "readerd: Ask About Images..." from the palette: pick logo.png and scan.pdf, type the question,
 * and the answer of the test's endpoint shows in the panel (screenshot).
 */
async function runVisionUi(page) {
  const name = 'vscode_ui_ask_about_images_screenshot';
  const shot = path.join(screenshots, 'vision-answer.png');
  try {
    const before = fs.readdirSync(vision.dir).filter((f) => f.endsWith('.json')).length;
    await runFromPalette(page, 'readerd: Ask About Images...');
    await page.locator('.quick-input-widget .quick-input-list .monaco-list-row').first().waitFor({ state: 'visible', timeout: 15_000 });
    await checkItem(page, 'logo', 'logo.png');
    await checkItem(page, 'scan', 'scan.pdf');
    await page.locator('.quick-input-widget input').fill('');
    await page.keyboard.press('Enter');
    const input = page.locator('.quick-input-widget input');
    await page.locator('.quick-input-widget', { hasText: 'The question for the vision model' }).waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill('What do these pictures show?');
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab', { hasText: 'readerd: Vision Answer' }).waitFor({ state: 'visible', timeout: 30_000 });
    const deadline = Date.now() + 20_000;
    let shown = '';
    while (Date.now() < deadline && !shown.includes('about 2 image(s)')) {
      for (const frame of page.frames()) {
        shown = await frame.evaluate(() => document.body?.innerText ?? '').catch(() => '');
        if (shown.includes('about 2 image(s)')) {
          break;
        }
      }
      await sleep(250);
    }
    if (!shown.includes("asked 'What do these pictures show?' about 2 image(s)")) {
      throw new Error(`the answer panel does not show the endpoint's answer: ${shown.slice(0, 400)}`);
    }
    const requests = fs.readdirSync(vision.dir).filter((f) => f.endsWith('.json')).length;
    if (requests !== before + 1) {
      throw new Error(`the endpoint received ${requests - before} requests, not 1`);
    }
    await page.screenshot({ path: shot });
    report(name, true, `screenshot: ${shot}`);
    await page.locator('.tabs-container .tab', { hasText: 'readerd: Vision Answer' }).locator('.codicon-close').first().click().catch(() => undefined);
  } catch (error) {
    await page.screenshot({ path: path.join(screenshots, 'vision-failure.png') }).catch(() => undefined);
    report(name, false, `${error.stack ?? error}\nscreenshot: ${path.join(screenshots, 'vision-failure.png')}`);
  }
}

/** The editor text of the visible editor whose lines contain `marker`, spaces normalized. */
async function editorText(page, marker) {
  const lines = page.locator('.monaco-editor .view-lines').filter({ hasText: marker }).first();
  await lines.waitFor({ state: 'visible', timeout: 20_000 });
  return (await lines.innerText()).replace(/\u00a0/g, ' ');
}

/**
 * Typing `@` in a Markdown file like a person: the completion list shows the workspace's files
 * (screenshot), accepting one inserts the mention, "readerd: Open Expanded Prompt" opens the
 * prompt with the file's content (screenshot), and Ctrl+click on its path opens the file.
 */
async function runMentionUi(page) {
  const name = 'vscode_ui_mention_completion_expand_and_link';
  const shot = path.join(screenshots, 'mention-completion.png');
  const expandedShot = path.join(screenshots, 'expanded-prompt.png');
  try {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill('prompt.md');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'prompt.md' }).first().waitFor({ state: 'visible', timeout: 10_000 });
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab.active', { hasText: 'prompt.md' }).waitFor({ state: 'visible', timeout: 10_000 });
    // The editor part's editor, not the chat's input (also a Monaco editor, and restored open by
    // a reload when an earlier test used it).
    const lines = page.locator('.part.editor .monaco-editor .view-lines').first();
    await lines.waitFor({ state: 'visible', timeout: 10_000 });
    // The keys go to the editor only once it has the focus: click into it, then wait for its
    // text area to hold the focus.
    await lines.click();
    await page.locator('.part.editor .monaco-editor.focused').first().waitFor({ state: 'visible', timeout: 10_000 });
    // Whatever the suite left in the file (VS Code restores unsaved editors): start afresh.
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('Prompt\n\nExplain @', { delay: 30 });
    const widget = page.locator('.editor-widget.suggest-widget.visible');
    const row = (label) => widget.locator('.monaco-list-row', { hasText: label }).first();
    await row('src/main.c').waitFor({ state: 'visible', timeout: 15_000 });
    await row('docs/').waitFor({ state: 'visible', timeout: 5_000 });
    fs.mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: shot });
    const shownRows = await widget.locator('.monaco-list-row').allInnerTexts();
    if (shownRows.some((r) => /\.env|skip\.tmp|debug\.log/.test(r))) {
      throw new Error(`the completion list offers excluded files: ${shownRows.join(' | ')}`);
    }
    // Fuzzy: `mai` narrows to src/main.c; Enter accepts it.
    await page.keyboard.type('mai', { delay: 30 });
    await widget.locator('.monaco-list-row.focused', { hasText: 'src/main.c' }).waitFor({ state: 'visible', timeout: 30_000 });
    await page.keyboard.press('Enter');
    let text = '';
    for (let i = 0; i < 40 && !text.includes('Explain @/src/main.c'); i++) {
      await sleep(100);
      text = await editorText(page, 'Prompt');
    }
    if (!text.includes('Explain @/src/main.c')) {
      throw new Error(`accepting src/main.c did not insert the mention:\n${text}`);
    }
    await runFromPalette(page, 'readerd: Open Expanded Prompt');
    await page.locator('.tabs-container .tab', { hasText: /Prompt-\d+\.md/ }).waitFor({ state: 'visible', timeout: 20_000 });
    // The editor may wrap a line where the panes leave it narrow: compare with blanks collapsed.
    const expanded = (await editorText(page, /see\sbelow\sfor\sfile\scontent/)).replace(/\s+/g, ' ');
    if (!expanded.includes("Explain 'src/main.c' (see below for file content)") || !expanded.includes("<Content path='src/main.c'")) {
      throw new Error(`the expanded prompt is not as expected:\n${expanded.slice(0, 800)}`);
    }
    await page.screenshot({ path: expandedShot });
    // The path in the prompt's <Content> is a link: Ctrl+click opens the file.
    const link = page.locator('.monaco-editor .view-lines .detected-link', { hasText: 'src/main.c' }).first();
    await link.waitFor({ state: 'visible', timeout: 10_000 });
    // A hover can cover the link while the editor redraws its line: dismiss it, move away and
    // click again, the last time at the link's place whatever lies on top.
    const opened = page.locator('.tabs-container .tab.active', { hasText: 'main.c' });
    for (let attempt = 0; ; attempt++) {
      try {
        await page.keyboard.press('Escape');
        await page.mouse.move(0, 0);
        await link.click({ modifiers: ['Control'], timeout: 10_000, force: attempt > 0 });
        await opened.waitFor({ state: 'visible', timeout: 10_000 });
        break;
      } catch (error) {
        if (attempt >= 2) throw error;
      }
    }
    await editorText(page, 'puts');
    report(name, true, `screenshots: ${shot}, ${expandedShot}`);
  } catch (error) {
    try {
      await page.screenshot({ path: path.join(screenshots, 'mention-failure.png') });
    } catch {
      // no page to show
    }
    report(name, false, `${error.stack ?? error}\nscreenshot: ${path.join(screenshots, 'mention-failure.png')}`);
  }
}

/**
 * The chat view of code-server: `@readerd` is offered among the participants. code-server has no
 * language model, so VS Code answers a request itself ("Language model unavailable") without
 * calling the participant; nothing else must go wrong.
 */
async function runChatUi(page) {
  const name = 'vscode_ui_chat_offers_readerd_participant';
  const shot = path.join(screenshots, 'chat-participant.png');
  try {
    await runFromPalette(page, 'Chat: Open Chat');
    const input = page.locator('.interactive-input-part .monaco-editor').first();
    await input.waitFor({ state: 'visible', timeout: 15_000 });
    await input.click();
    await page.keyboard.type('@reade', { delay: 40 });
    const row = page.locator('.editor-widget.suggest-widget.visible .monaco-list-row', { hasText: '@readerd' }).first();
    await row.waitFor({ state: 'visible', timeout: 45_000 });
    fs.mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: shot });
    await page.keyboard.press('Escape');
    report(name, true, `screenshot: ${shot}`);
  } catch (error) {
    try {
      await page.screenshot({ path: path.join(screenshots, 'chat-failure.png') });
    } catch {
      // no page to show
    }
    report(name, false, `${error.stack ?? error}\nscreenshot: ${path.join(screenshots, 'chat-failure.png')}`);
  }
}

/**
 * MCP: List Servers shows readerd (the extension's provider); starting it brings it to Running
 * and VS Code discovers its one tool.
 */
async function runMcpUi(page) {
  const name = 'vscode_ui_mcp_server_listed_and_starts';
  const shot = path.join(screenshots, 'mcp-server.png');
  const serverRow = () => page.locator('.quick-input-list .monaco-list-row', { hasText: 'readerd' }).first();
  try {
    await runFromPalette(page, 'MCP: List Servers');
    await serverRow().waitFor({ state: 'visible', timeout: 15_000 });
    await serverRow().click();
    const start = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Start Server' }).first();
    await start.waitFor({ state: 'visible', timeout: 10_000 });
    await start.click();
    let status = '';
    for (let i = 0; i < 20 && !/Running/.test(status); i++) {
      await sleep(1000);
      await runFromPalette(page, 'MCP: List Servers');
      await serverRow().waitFor({ state: 'visible', timeout: 10_000 });
      status = await serverRow().innerText();
    }
    fs.mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: shot });
    await page.keyboard.press('Escape');
    if (!/Running/.test(status)) {
      throw new Error(`readerd mcp is not running: ${status}`);
    }
    // VS Code's log of the server (the Output panel it opened): the handshake gave read_files.
    await page.locator('.monaco-workbench .part.panel .view-lines', { hasText: /Discovered\s3\stools/ }).first()
      .waitFor({ state: 'visible', timeout: 45_000 });
    report(name, true, `screenshot: ${shot}`);
  } catch (error) {
    try {
      await page.screenshot({ path: path.join(screenshots, 'mcp-failure.png') });
    } catch {
      // no page to show
    }
    report(name, false, `${error.stack ?? error}\nscreenshot: ${path.join(screenshots, 'mcp-failure.png')}`);
  }
}

async function main() {
  fs.rmSync(scratch, { recursive: true, force: true });
  const dirs = {
    workspace: path.join(scratch, 'workspace'),
    multiRoot: path.join(scratch, 'multi-root'),
    userData: path.join(scratch, 'user-data'),
    extensions: path.join(scratch, 'extensions'),
    results: path.join(scratch, 'suite-results.json'),
    xdg: {
      XDG_CONFIG_HOME: path.join(scratch, 'xdg', 'config'),
      XDG_DATA_HOME: path.join(scratch, 'xdg', 'data'),
      XDG_CACHE_HOME: path.join(scratch, 'xdg', 'cache'),
    },
  };
  await startVisionServer();
  makeWorkspace(dirs.workspace);
  const workspaceFile = makeMultiRoot(dirs.multiRoot);
  // readerd.path is machine-overridable: in a remote window (code-server is one) the extension
  // host reads it from the machine's settings (the Remote tab) as well as the user's. Both hold it,
  // so a window that has not yet loaded the user's settings still finds the binary.
  writeJson(path.join(dirs.userData, 'Machine', 'settings.json'), { 'readerd.path': readerd });
  writeJson(path.join(dirs.userData, 'User', 'settings.json'), userSettings());
  const serverLog = path.join(scratch, 'code-server.log');
  const browserLog = path.join(scratch, 'browser.log');
  const started = Date.now();
  const installed = await runNode([path.join(codeServerDir, 'out', 'node', 'entry.js'),
    '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions, '--install-extension', vsix],
  { env: { ...process.env, ...dirs.xdg, ...offline } }).then(() => true, (error) => {
    report('vscode_vsix_installs', false, String(error));
    return false;
  });
  if (installed) {
    report('vscode_vsix_installs', true);
  }
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  let server;
  try {
    let port = await freePort();
    let base = { origin: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}` };
    server = await startCodeServer(port, dirs, dirs.workspace, serverLog, { smokeTestDriver: true });
    console.log(`# code-server on ${base.origin} (${elapsed()})`);
    await runSuite(base, dirs, browserLog, { name: 'single', module: 'index.js', open: `folder=${encodeURIComponent(dirs.workspace)}` });
    console.log(`# suite done (${elapsed()})`);
    await stopProcessGroup(server);
    // The vision key the suite stored went to the endpoint, and into no log of VS Code, the
    // extension or the daemon (the output channel is a file under user-data/logs).
    const logged = [serverLog, browserLog, path.join(dirs.userData, 'logs'), path.join(scratch, 'xdg')]
      .flatMap((where) => (fs.statSync(where, { throwIfNoEntry: false })?.isDirectory() ? filesContaining(where, VISION_KEY) : (fs.existsSync(where) && fs.readFileSync(where).includes(VISION_KEY) ? [where] : [])));
    const sent = filesContaining(vision.dir, VISION_KEY);
    report('vscode_vision_key_sent_and_never_logged', logged.length === 0 && sent.length > 0,
      `logs holding the key: ${logged.join(', ') || 'none'}; requests holding it: ${sent.length}`);
    // The UI phase: a plan above this asks first.
    writeJson(path.join(dirs.workspace, '.vscode', 'settings.json'), workspaceSettings({ 'readerd.confirmAboveTokens': 20 }));
    if (installed) {
      port = await freePort();
      base = { origin: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}` };
      server = await startCodeServer(port, dirs, dirs.workspace, serverLog, { smokeTestDriver: false });
      await runUi(base, dirs, browserLog);
      console.log(`# UI done (${elapsed()})`);
      await stopProcessGroup(server);
    }
    port = await freePort();
    base = { origin: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}` };
    server = await startCodeServer(port, dirs, workspaceFile, serverLog, { smokeTestDriver: true });
    await runSuite(base, dirs, browserLog, { name: 'multi-root', module: 'multiRoot.js', open: `workspace=${encodeURIComponent(workspaceFile)}` });
    console.log(`# multi-root suite done (${elapsed()})`);
  } catch (error) {
    report('vscode_run', false, String(error.stack ?? error));
  } finally {
    await stopProcessGroup(server);
    if (vision.child) {
      await stopProcessGroup(vision.child);
    }
  }
  const failed = outcomes.filter((o) => !o.ok).length;
  if (failed > 0) {
    console.log(`# logs: ${serverLog}, ${browserLog}`);
  }
  console.log(`# vscode: ${outcomes.length - failed} passed, ${failed} failed`);
  process.exitCode = failed > 0 ? 1 : 0;
}

await main();
