// Which workspace paths the mention completion leaves out: `.gitignore` rules and the fence's
// `readerd.exclude` patterns, matched as git and the daemon match them. Plain Node: no vscode
// import.

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
