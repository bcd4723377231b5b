// Whether a file is readerd: it exists, is an executable regular file, and `FILE --version`
// answers `readerd X.Y.Z`. Used before the path a person picks is written to `readerd.path`, and to
// say in words why a configured path cannot be started. Plain Node: no vscode import.

import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';

export type BinaryCheck = { ok: true; version: string } | { ok: false; reason: string };

/** The line `sudo apt install` needs: said in every "readerd was not found" message. */
export const INSTALL_LINE = 'sudo apt install ./readerd_*.deb';

const VERSION_LINE = /^readerd (\d+\.\d+\.\d+)\b/;

/**
 * Why `file` cannot be run at all, in words that follow its path ("there is no file there");
 * undefined when it is an executable regular file.
 */
export async function whyNotExecutable(file: string): Promise<string | undefined> {
  let st;
  try {
    st = await fs.stat(file);
  } catch {
    return 'there is no file there';
  }
  if (st.isDirectory()) {
    return 'it is a folder, not the readerd program';
  }
  if (!st.isFile()) {
    return 'it is not a regular file';
  }
  try {
    await fs.access(file, fs.constants.X_OK);
  } catch {
    return 'it is not executable (chmod +x it, or pick the readerd program)';
  }
  return undefined;
}

/** Runs `file --version` (at most `timeoutMs`) and accepts it only when it answers `readerd X.Y.Z`. */
export async function checkReaderdBinary(file: string, timeoutMs = 5000): Promise<BinaryCheck> {
  const why = await whyNotExecutable(file);
  if (why) {
    return { ok: false, reason: `${file}: ${why}` };
  }
  return new Promise<BinaryCheck>((resolve) => {
    execFile(file, ['--version'], { timeout: timeoutMs, maxBuffer: 64 * 1024, windowsHide: true }, (error, stdout) => {
      const first = String(stdout ?? '').split('\n')[0]!.trim();
      const m = VERSION_LINE.exec(first);
      if (m && !error) {
        resolve({ ok: true, version: m[1]! });
        return;
      }
      if (error && (error as { killed?: boolean }).killed) {
        resolve({ ok: false, reason: `${file} is not readerd: "${file} --version" did not answer within ${timeoutMs / 1000} s` });
      } else if (first === '') {
        resolve({ ok: false, reason: `${file} is not readerd: "--version" printed nothing (readerd prints "readerd X.Y.Z")` });
      } else {
        resolve({ ok: false, reason: `${file} is not readerd: "--version" printed "${first.slice(0, 80)}" (readerd prints "readerd X.Y.Z")` });
      }
    });
  });
}
