// Which files readerd leaves out, whoever lists them, all in one place: `readerd.exclude` (the
// fence's patterns, refused by the daemon too), each workspace folder's `.gitignore` (matched as
// git matches it), VS Code's `files.exclude` (what the Explorer hides), and links the daemon
// always refuses. The read command's quick pick and plan, and the `@` completion's index, ask
// here. Plain Node: no vscode import; what VS Code knows (settings, files) comes in through
// ExclusionSources.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { RootFolder, WorkspaceRoots } from './roots';

/** A glob (`*`, `**`, `?`, `[abc]`, `{a,b}`) as a RegExp matching a whole `/`-separated path. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // `**/` any folders (or none), a trailing `**` anything.
        const slash = glob[i + 2] === '/';
        re += slash ? '(?:[^/]*(?:/|$))*' : '.*';
        i += slash ? 2 : 1;
      } else {
        re += '[^/]*';
      }
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close < 0) {
        re += '\\[';
      } else {
        const body = glob.slice(i + 1, close).replace(/^!/, '^').replace(/\\/g, '\\\\');
        re += `[${body}]`;
        i = close;
      }
    } else if (c === '{') {
      braces++;
      re += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      re += ')';
    } else if (c === ',' && braces > 0) {
      re += '|';
    } else if (c === '\\' && i + 1 < glob.length) {
      re += glob[++i]!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    } else {
      re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`);
}

interface Rule {
  re: RegExp;
  negate: boolean;
  dirOnly: boolean;
  /** Matched against the whole relative path (the pattern has a `/` before its end), else against each name. */
  anchored: boolean;
}

/** Rules of one ignore file (`.gitignore` syntax), relative to the folder that holds it. */
export class IgnoreRules {
  private readonly rules: Rule[] = [];

  /** Adds the lines of a `.gitignore`. */
  addGitignore(text: string): this {
    for (let line of text.split(/\r?\n/)) {
      line = line.replace(/(?<!\\)\s+$/, '');
      if (line === '' || line.startsWith('#')) {
        continue;
      }
      const negate = line.startsWith('!');
      if (negate) {
        line = line.slice(1);
      }
      const dirOnly = line.endsWith('/');
      line = line.replace(/\/+$/, '');
      const anchored = line.includes('/');
      line = line.replace(/^\//, '');
      if (line !== '') {
        this.rules.push({ re: globToRegExp(line), negate, dirOnly, anchored });
      }
    }
    return this;
  }

  /**
   * Adds the fence's exclude patterns (`readerd.exclude`): one without `/` matches a file's name,
   * one with `/` its path under the folder.
   */
  addExcludes(patterns: readonly string[]): this {
    for (const p of patterns) {
      if (p.trim() !== '') {
        const anchored = p.includes('/');
        this.rules.push({ re: globToRegExp(p.replace(/^\//, '')), negate: false, dirOnly: false, anchored });
      }
    }
    return this;
  }

  get size(): number {
    return this.rules.length;
  }

  /**
   * Whether `rel` (`/`-separated, relative to the rules' folder) is left out: it or a folder
   * above it matches, the last matching rule deciding (`!pattern` takes a path back in).
   */
  ignores(rel: string, isDir = false): boolean {
    const parts = rel.split('/').filter((p) => p !== '');
    for (let depth = 1; depth <= parts.length; depth++) {
      const dir = depth < parts.length || isDir;
      if (this.decide(parts.slice(0, depth), dir)) {
        return true;
      }
    }
    return false;
  }

  private decide(parts: string[], isDir: boolean): boolean {
    const whole = parts.join('/');
    const name = parts[parts.length - 1]!;
    let ignored = false;
    for (const rule of this.rules) {
      if (rule.dirOnly && !isDir) {
        continue;
      }
      if (rule.re.test(rule.anchored ? whole : name)) {
        ignored = !rule.negate;
      }
    }
    return ignored;
  }
}

/**
 * A matcher for `files.exclude`'s value (`{"**\/*.tmp": true, "**\/node_modules": true}`): true
 * for a `/`-separated path relative to its workspace folder that the Explorer hides. Patterns
 * set to `false` are off; `{when: ...}` conditions (sibling files) are not evaluated and count as
 * off.
 */
export function filesExcludeMatcher(setting: Record<string, unknown> | undefined): (relative: string) => boolean {
  const patterns = Object.entries(setting ?? {})
    .filter(([, on]) => on === true)
    .map(([glob]) => globToRegExp(glob.replace(/^\.\//, '').replace(/\/+$/, '')));
  if (patterns.length === 0) {
    return () => false;
  }
  return (relative: string) => {
    const parts = relative.split('/').filter((p) => p !== '' && p !== '.');
    for (let n = 1; n <= parts.length; n++) {
      const prefix = parts.slice(0, n).join('/');
      if (patterns.some((re) => re.test(prefix))) {
        return true;
      }
    }
    return false;
  };
}

/**
 * Whether a path is a link readerd refuses whatever asks: one that leads nowhere, out of its
 * workspace folder (with readerd.confineToWorkspace), or to a file readerd.exclude refuses.
 */
export async function linkRefused(fsPath: string, fence: { folder: string | undefined; confined: boolean }, excluded: (fsPath: string) => boolean): Promise<boolean> {
  try {
    if (!(await fs.promises.lstat(fsPath)).isSymbolicLink()) {
      return false;
    }
  } catch {
    return false;
  }
  let target: string;
  try {
    target = await fs.promises.realpath(fsPath);
  } catch {
    return true;
  }
  if (fence.confined && fence.folder) {
    const folder = await fs.promises.realpath(fence.folder).catch(() => fence.folder!);
    const rel = path.relative(folder, target);
    if (rel.startsWith('..') || path.isAbsolute(rel)) {
      return true;
    }
  }
  return excluded(target);
}

/** The settings whose change changes what is left out (a listing made before is stale). */
export const EXCLUSION_SETTINGS: readonly string[] = ['files.exclude', 'readerd.exclude'];

/** The name of the ignore file read in each workspace folder. */
export const IGNORE_FILE = '.gitignore';

/** What an Exclusion reads from VS Code, given by the extension. */
export interface ExclusionSources {
  roots(): WorkspaceRoots;
  /** `readerd.exclude`. */
  patterns(): readonly string[];
  /** `readerd.confineToWorkspace`. */
  confined(): boolean;
  /** `files.exclude` as it applies to a workspace folder. */
  filesExclude(folder: string): Record<string, unknown> | undefined;
  /** A file's text (a folder's `.gitignore`); undefined when it cannot be read. */
  readText(file: string): Promise<string | undefined>;
}

/** What the read command's quick pick leaves out, by absolute path. */
export interface LeftOutOfPick {
  /** What a folder's `.gitignore` leaves out (as a folder's read does). */
  ignored: Set<string>;
  /** Links the daemon always refuses. */
  links: Set<string>;
}

/** An absolute path's workspace folder and its `/`-separated path under it. */
function underFolder(roots: WorkspaceRoots, fsPath: string): { folder: RootFolder; rel: string } | undefined {
  const folder = roots.folderOf(fsPath);
  return folder && { folder, rel: path.relative(folder.path, fsPath).split(path.sep).join('/') };
}

/** The workspace's exclusion rules, read afresh from their sources as they are asked. */
export class Exclusion {
  /** readerd.exclude compiled, for as long as the setting is the same array. */
  private compiled: { of: readonly string[]; rules: IgnoreRules } | undefined;

  constructor(private readonly from: ExclusionSources) {}

  /** Whether the Explorer hides a path written as WorkspaceRoots.display writes it (files.exclude). */
  hidden(displayed: string): boolean {
    const roots = this.from.roots();
    const under = underFolder(roots, roots.locate(displayed).absolute);
    return !!under && filesExcludeMatcher(this.from.filesExclude(under.folder.path))(under.rel);
  }

  /** Whether readerd.exclude refuses an absolute path (under a workspace folder). */
  excluded(fsPath: string): boolean {
    // Asked once per file of a listing: the patterns are compiled once per settings.
    const patterns = this.from.patterns();
    if (this.compiled?.of !== patterns) {
      this.compiled = { of: patterns, rules: new IgnoreRules().addExcludes(patterns) };
    }
    const under = underFolder(this.from.roots(), fsPath);
    return !!under && this.compiled.rules.ignores(under.rel);
  }

  /**
   * For one listing: a test of absolute paths against each workspace folder's `.gitignore`,
   * read now, after readerd.exclude's patterns when `patterns` is set (a `!pattern` of the
   * `.gitignore` then takes a path back in). A path under no folder is not left out.
   */
  async leftOutBy(options: { patterns: boolean }): Promise<(fsPath: string) => boolean> {
    const roots = this.from.roots();
    const rules = new Map<string, IgnoreRules>();
    for (const folder of roots.folders) {
      const r = new IgnoreRules();
      if (options.patterns) {
        r.addExcludes(this.from.patterns());
      }
      const text = await this.from.readText(path.join(folder.path, IGNORE_FILE));
      if (text !== undefined) {
        r.addGitignore(text);
      }
      rules.set(folder.path, r);
    }
    return (fsPath) => {
      const under = underFolder(roots, fsPath);
      return !!under && !!rules.get(under.folder.path)?.ignores(under.rel);
    };
  }

  /** The paths of `found` the read command's quick pick leaves out, and why. */
  async leftOutOfPick(found: readonly string[]): Promise<LeftOutOfPick> {
    const out: LeftOutOfPick = { ignored: new Set(), links: new Set() };
    const isIgnored = await this.leftOutBy({ patterns: false });
    const roots = this.from.roots();
    await Promise.all(found.map(async (fsPath) => {
      if (isIgnored(fsPath)) {
        out.ignored.add(fsPath);
      } else if (await linkRefused(fsPath, { folder: roots.folderOf(fsPath)?.path, confined: this.from.confined() }, (p) => this.excluded(p))) {
        out.links.add(fsPath);
      }
    }));
    return out;
  }
}
