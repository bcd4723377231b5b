// VS Code's `files.exclude` as a test of workspace-relative paths, for what readerd expands
// from a folder: a file is left out when its path or one of its folders matches a pattern that
// is on. Plain Node: no vscode import.

import { globToRegExp } from './ignore';

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
