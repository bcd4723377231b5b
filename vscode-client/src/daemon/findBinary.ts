// Finds the readerd binary: the configured path, else one built in the repository
// (`build/daemon/readerd` in a folder above the workspace or the extension), else `readerd` on PATH,
// else where the .deb installs it (/usr/bin/readerd, also when PATH is short, as in a service).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface FindOptions {
  /** The `readerd.path` setting; relative paths resolve against `baseDir`. */
  configured?: string;
  /** Folders to search upwards from for `build/daemon/readerd`. */
  searchFrom?: string[];
  baseDir?: string;
  /** Defaults to process.env.PATH. */
  pathEnv?: string;
  /** Installed locations tried last. Default: INSTALLED_PATHS. */
  installed?: string[];
}

export interface FoundBinary {
  path: string;
  how: 'setting' | 'repository' | 'PATH' | 'package';
}

/** Where the readerd package installs the binary (`sudo apt install ./readerd_*.deb`). */
export const INSTALLED_PATHS: readonly string[] = ['/usr/bin/readerd', '/usr/local/bin/readerd'];

const REPO_BINARY = path.join('build', 'daemon', 'readerd');

function isExecutable(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) {
      return false;
    }
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Returns where readerd is, or undefined when it is nowhere. A configured path is returned as is
 * (expanded) even when it does not exist, so that the error names it.
 */
export function findReaderd(options: FindOptions): FoundBinary | undefined {
  const configured = options.configured?.trim();
  if (configured) {
    let p = configured.startsWith('~/') ? path.join(os.homedir(), configured.slice(2)) : configured;
    if (!path.isAbsolute(p)) {
      p = path.resolve(options.baseDir ?? process.cwd(), p);
    }
    return { path: p, how: 'setting' };
  }
  for (const start of options.searchFrom ?? []) {
    let dir = path.resolve(start);
    for (;;) {
      const candidate = path.join(dir, REPO_BINARY);
      if (isExecutable(candidate)) {
        return { path: candidate, how: 'repository' };
      }
      const parent = path.dirname(dir);
      if (parent === dir) {
        break;
      }
      dir = parent;
    }
  }
  const pathEnv = options.pathEnv ?? process.env.PATH ?? '';
  for (const dir of pathEnv.split(path.delimiter)) {
    if (dir === '') {
      continue;
    }
    const candidate = path.join(dir, 'readerd');
    if (isExecutable(candidate)) {
      return { path: candidate, how: 'PATH' };
    }
  }
  for (const candidate of options.installed ?? INSTALLED_PATHS) {
    if (isExecutable(candidate)) {
      return { path: candidate, how: 'package' };
    }
  }
  return undefined;
}
