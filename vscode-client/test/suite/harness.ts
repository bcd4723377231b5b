// A small test runner for the suites that run inside VS Code: each test with a time limit, an
// `ok`/`not ok` line per test, and the outcomes written as JSON for test/e2e/run.mjs.

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

interface Outcome {
  name: string;
  ok: boolean;
  ms: number;
  error?: string;
}

type TestFn = () => Promise<void>;
const tests: Array<{ name: string; fn: TestFn; timeoutMs: number }> = [];

export const EXTENSION_ID = 'readerd.readerd';

export function test(name: string, fn: TestFn, timeoutMs = 30_000): void {
  tests.push({ name, fn, timeoutMs });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function waitFor<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await sleep(50);
  }
}

/** The readerd processes this extension host started (children of this process). */
export function readerdChildren(): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...
      const m = /^\d+ \((.*)\) \S+ (\d+)/.exec(stat);
      if (m && m[1] === 'readerd' && Number(m[2]) === process.pid) {
        pids.push(Number(entry));
      }
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * Runs the tests registered, in order; writes the outcomes to `resultsFile` after each; throws
 * when any failed (VS Code then reports exit 1).
 */
export async function runTests(resultsFile: string): Promise<void> {
  const outcomes: Outcome[] = [];
  for (const t of tests) {
    const started = Date.now();
    try {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        t.fn(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${t.timeoutMs} ms`)), t.timeoutMs);
        }),
      ]).finally(() => clearTimeout(timer));
      outcomes.push({ name: t.name, ok: true, ms: Date.now() - started });
      console.log(`ok - ${t.name}`);
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      outcomes.push({ name: t.name, ok: false, ms: Date.now() - started, error: message });
      console.log(`not ok - ${t.name}\n${message}`);
    }
    fs.mkdirSync(path.dirname(resultsFile), { recursive: true });
    fs.writeFileSync(resultsFile, JSON.stringify(outcomes, null, 2));
  }
  const failed = outcomes.filter((o) => !o.ok).length;
  if (failed > 0) {
    throw new Error(`${failed} of ${outcomes.length} tests failed`);
  }
}

/** Where a suite writes its outcomes: $READERD_E2E_RESULTS with the suite's name, else in the first folder. */
export function resultsFile(suite: string): string {
  const base = process.env.READERD_E2E_RESULTS;
  if (base) {
    return base.replace(/(\.json)?$/, `-${suite}.json`);
  }
  return path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, `.readerd-e2e-results-${suite}.json`);
}
