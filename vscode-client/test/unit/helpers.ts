// Shared by the unit tests: where the real readerd binary is, and a scratch workspace.

import { spawn, ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** The repository's root (tests run from vscode-client/out/test/unit). */
export const REPO = path.resolve(__dirname, '..', '..', '..', '..');

/** The readerd binary: $READERD, else build/daemon/readerd of the repository. */
export function readerdBinary(): string {
  const binary = process.env.READERD || path.join(REPO, 'build', 'daemon', 'readerd');
  if (!fs.existsSync(binary)) {
    throw new Error(`readerd binary not found at ${binary}: build it (ninja -C build) or set READERD`);
  }
  return binary;
}

/** The extension's package.json. */
export const PACKAGE_JSON = JSON.parse(fs.readFileSync(path.join(REPO, 'vscode-client', 'package.json'), 'utf8')) as {
  activationEvents?: string[];
  contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
};

/** The default package.json gives the setting `readerd.NAME`. */
export function settingDefault<T>(name: string): T {
  const property = PACKAGE_JSON.contributes.configuration.properties[`readerd.${name}`];
  if (!property || !('default' in property)) {
    throw new Error(`package.json declares no default for readerd.${name}`);
  }
  return property.default as T;
}

/** A scratch workspace with a text file, an image, a file with spaces in its name and a folder. */
export function makeWorkspace(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'readerd-unit-'));
  fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\nbeta\ngamma\n');
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src', 'main.c'), 'int main(void) {\n  return 0;\n}\n');
  fs.mkdirSync(path.join(root, 'docs'));
  fs.writeFileSync(path.join(root, 'docs', 'my file.md'), '# Title\n\nSpaces in the name.\n');
  fs.writeFileSync(path.join(root, 'docs', 'notes.txt'), 'note one\nnote two\n');
  fs.mkdirSync(path.join(root, 'docs', 'deeper'));
  fs.writeFileSync(path.join(root, 'docs', 'deeper', 'hidden.txt'), 'not read: one level only\n');
  fs.copyFileSync(path.join(REPO, 'samples', 'readerd.png'), path.join(root, 'logo.png'));
  return root;
}

/** A text file big enough that reading it thousands of times takes seconds (for cancel/timeout). */
export function makeBigFile(root: string): string {
  const file = path.join(root, 'big.log');
  const line = 'x'.repeat(99) + '\n';
  fs.writeFileSync(file, line.repeat(40_000)); // 4 MB
  return file;
}

export function removeWorkspace(root: string): void {
  fs.rmSync(root, { recursive: true, force: true });
}

/** Starts `readerd serve --socket PATH` and waits for the socket to appear. */
export async function startSocketDaemon(socketPath: string): Promise<ChildProcess> {
  const child = spawn(readerdBinary(), ['serve', '--socket', socketPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const deadline = Date.now() + 5000;
  // The socket file appears at bind(), before listen(): wait until a connection goes through.
  while (!(await canConnect(socketPath))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`readerd serve --socket did not start: ${stderr}`);
    }
    await sleep(20);
  }
  return child;
}

function canConnect(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.createConnection(socketPath);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until `check()` is true, polling every 20 ms. */
export async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await sleep(20);
  }
}

/** Whether a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
