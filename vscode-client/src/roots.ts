// The workspace folders as roots: which folder a path belongs to, and how a path a caller wrote
// (relative, absolute, or prefixed with a folder's name as VS Code writes paths in a multi-root
// workspace) is sent to readerd. Plain Node: no vscode import.

import * as fs from 'node:fs';
import * as path from 'node:path';

/** A workspace folder: its name (as VS Code shows it) and its absolute path. */
export interface RootFolder {
  name: string;
  path: string;
}

/** Where a path belongs and what to send for it. */
export interface LocatedPath {
  /** The folder whose fence applies: the one containing the path, else the first; none without folders. */
  root: string | undefined;
  /** The path to send with `cwd` set to `base`. */
  sent: string;
  /** The folder `sent` is relative to (the caller's cwd, or the root). */
  base: string | undefined;
  /** The absolute path, resolved lexically. */
  absolute: string;
}

/** Whether `child` is `parent` or lies under it (lexically). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The workspace folders, in the order VS Code lists them. */
export class WorkspaceRoots {
  readonly folders: readonly RootFolder[];

  constructor(folders: readonly RootFolder[]) {
    this.folders = folders.map((f) => ({ name: f.name, path: path.resolve(f.path) }));
  }

  /** The first folder: the root of paths that belong to no folder. */
  get first(): string | undefined {
    return this.folders[0]?.path;
  }

  get isMultiRoot(): boolean {
    return this.folders.length > 1;
  }

  /** The innermost folder containing `absolute`, or undefined. */
  folderOf(absolute: string): RootFolder | undefined {
    let best: RootFolder | undefined;
    for (const folder of this.folders) {
      if (isInside(folder.path, absolute) && (!best || folder.path.length > best.path.length)) {
        best = folder;
      }
    }
    return best;
  }

  /**
   * Locates a path as a caller wrote it. With `cwd`, a relative path is relative to it. Without,
   * in a multi-root workspace, a path starting with a folder's name (`app/src/main.c`) is in that
   * folder, and another relative path is in the first folder that has it (else the first one).
   * The root is the innermost folder containing the path, else the first folder (so that with
   * confinement on, what lies outside every folder is refused).
   */
  locate(written: string, cwd?: string): LocatedPath {
    if (cwd !== undefined || path.isAbsolute(written) || this.folders.length === 0) {
      const base = cwd ?? this.first;
      const absolute = base !== undefined ? path.resolve(base, written) : path.resolve(written);
      return { root: this.folderOf(absolute)?.path ?? this.first, sent: written, base, absolute };
    }
    if (this.isMultiRoot) {
      const slash = written.indexOf('/');
      const head = slash < 0 ? written : written.slice(0, slash);
      const named = this.folders.find((f) => f.name === head);
      if (named) {
        const rest = slash < 0 ? '' : written.slice(slash + 1).replace(/^\/+/, '');
        const sent = rest === '' ? '.' : rest;
        const absolute = path.resolve(named.path, sent);
        return { root: this.folderOf(absolute)?.path ?? named.path, sent, base: named.path, absolute };
      }
      const having = this.folders.find((f) => fs.existsSync(path.resolve(f.path, written)));
      if (having) {
        const absolute = path.resolve(having.path, written);
        return { root: this.folderOf(absolute)?.path ?? having.path, sent: written, base: having.path, absolute };
      }
    }
    const base = this.first!;
    const absolute = path.resolve(base, written);
    return { root: this.folderOf(absolute)?.path ?? base, sent: written, base, absolute };
  }

  /**
   * How to write an absolute path for a request: relative to its folder (`/`-separated), with
   * the folder's name in front in a multi-root workspace (the folder itself: its name), the one
   * folder itself `.`; absolute when outside every folder.
   */
  display(absolute: string): string {
    const folder = this.folderOf(absolute);
    if (!folder) {
      return absolute;
    }
    const rel = path.relative(folder.path, absolute).split(path.sep).join('/');
    if (!this.isMultiRoot) {
      return rel === '' ? '.' : rel;
    }
    return rel === '' ? folder.name : `${folder.name}/${rel}`;
  }
}
