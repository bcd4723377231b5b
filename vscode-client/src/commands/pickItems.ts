// What the read command's quick pick offers: the workspace's files less those `readerd.exclude`
// refuses (counted, so the pick can say how many it leaves out), and every folder above them, so
// a folder can be picked and read recursively. Plain Node: no vscode import.

export interface PickFile {
  /** The path as the request writes it (see WorkspaceRoots.display). */
  rel: string;
  /** Whether readerd.exclude refuses it. */
  excluded: boolean;
}

export interface PickFolder {
  /** The folder as the request writes it, without a trailing slash. */
  rel: string;
  /** Files under it (recursively) that are not excluded. */
  files: number;
}

export interface PickEntries {
  files: string[];
  folders: PickFolder[];
  /** Files left out because readerd.exclude refuses them. */
  excluded: string[];
}

/**
 * Splits `files` into those to offer and those excluded, and lists the folders above the
 * offered ones with how many files each holds, all sorted by path.
 */
export function pickEntries(files: readonly PickFile[]): PickEntries {
  const out: PickEntries = { files: [], folders: [], excluded: [] };
  const counts = new Map<string, number>();
  for (const file of files) {
    if (file.excluded) {
      out.excluded.push(file.rel);
      continue;
    }
    out.files.push(file.rel);
    const parts = file.rel.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const dir = parts.slice(0, depth).join('/');
      counts.set(dir, (counts.get(dir) ?? 0) + 1);
    }
  }
  out.files.sort();
  out.excluded.sort();
  out.folders = [...counts].map(([rel, n]) => ({ rel, files: n })).sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  return out;
}
