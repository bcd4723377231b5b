// @-mentions in a chat message, as Cline writes them: `@/relative/path`, `@/folder/` and
// `@"/path with spaces.md"` (a space may also be escaped: `@/my\ file.md`). Paths are relative
// to the workspace folder (in a multi-root workspace, `@/name/...` is in the folder called name).
// Plain Node: no vscode import.

import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ImageInfo, ReadResult, XmlReadParams } from './protocol';

export interface Mention {
  /** The text as written, `@"/docs/my file.md"`. */
  raw: string;
  /** Offset of `@` in the text. */
  start: number;
  /** Offset just after the mention. */
  end: number;
  /** Path relative to the workspace folder, `/` separated, no leading or trailing slash; `.` is the folder itself. */
  path: string;
  /** Written with a trailing slash. */
  folder: boolean;
}

// `@` must start the text or follow whitespace or an opening bracket or quote, so that e-mail
// addresses (`me@host`) and URLs (`https://host/@/x`) are not mentions.
const MENTION = /(?<=^|[\s([{<'"`])@(?:"(\/[^"\r\n]*)"|(\/(?:\\ |[^\s"'`<>\\])*))/g;
const TRAILING_PUNCTUATION = /[.,;:!?)\]}]+$/;

/** Finds the mentions in `text`, in order. Mentions of paths outside the folder (`@/../x`) are left out. */
export function parseMentions(text: string): Mention[] {
  const mentions: Mention[] = [];
  for (const m of text.matchAll(MENTION)) {
    const start = m.index ?? 0;
    let raw = m[0];
    let written: string;
    if (m[1] !== undefined) {
      written = m[1];
    } else {
      // A sentence may end right after a mention: `see @/src/a.c.`
      const cut = (m[2] ?? '').replace(TRAILING_PUNCTUATION, '');
      raw = raw.slice(0, raw.length - ((m[2] ?? '').length - cut.length));
      written = cut.replace(/\\ /g, ' ');
    }
    const folder = written.endsWith('/');
    const rel = normalizeRelative(written);
    if (rel === undefined) {
      continue;
    }
    mentions.push({ raw, start, end: start + raw.length, path: rel, folder });
  }
  return mentions;
}

function normalizeRelative(written: string): string | undefined {
  // Normalized without the leading slash, so that `/../x` stays outside instead of clamping to `/x`.
  const rel = path.posix.normalize(written.slice(1)).replace(/\/+$/, '');
  if (rel === '..' || rel.startsWith('../')) {
    return undefined;
  }
  return rel === '' ? '.' : rel;
}

export interface ExpandDeps {
  /**
   * The folder the mentions are relative to, sent as the request's `cwd`. Undefined: no `cwd`,
   * `read` resolves them (against the workspace folders); `listFolder` and `isFolder` are then
   * required.
   */
  root: string | undefined;
  /** Sends one `read` request. */
  read(params: XmlReadParams): Promise<ReadResult>;
  /**
   * Files (not folders) directly in the folder `relDir` (relative to root), as paths relative to
   * root, in the order to read them. Default: the folder's regular files, sorted, dot-files kept.
   */
  listFolder?(relDir: string): Promise<string[]>;
  /** Whether `rel` is a folder. Default: fs.stat. */
  isFolder?(rel: string): Promise<boolean>;
}

export interface ExpandedMessage {
  /** The message with each mention replaced by a reference, then the `<ReadResults>` XML. */
  text: string;
  /** Images of the mentioned files, to attach to the message. */
  images: ImageInfo[];
  mentions: Mention[];
  /** The paths read, relative to the root; empty when the message mentions nothing. */
  paths: string[];
  result?: ReadResult;
}

/** Default folder listing: regular files (or links to them) directly in the folder, sorted. */
export async function listFolderFiles(root: string, relDir: string): Promise<string[]> {
  const abs = path.join(root, relDir);
  const entries = await fs.readdir(abs, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      isFile = await fs.stat(path.join(abs, entry.name)).then((s) => s.isFile(), () => false);
    }
    if (isFile) {
      files.push(relDir === '.' ? entry.name : `${relDir}/${entry.name}`);
    }
  }
  return files.sort();
}

/**
 * `isFolder` and `listFolder` for mentions that are not relative to one root: `absolute` says
 * where a mention's path is (in the extension, the workspace folder it belongs to), `filesIn`
 * lists the files directly in a folder (absolute paths; default: its regular files, sorted) and
 * `isDirectory` tells a folder (default: fs.stat). A folder's files keep the mention's prefix:
 * `@/app/docs/` gives `app/docs/a.md`, so they are located the same way.
 */
export function locatedFolders(
  absolute: (rel: string) => string,
  filesIn: (absDir: string) => Promise<string[]> = async (dir) => (await listFolderFiles(dir, '.')).map((f) => path.join(dir, f)),
  isDirectory: (abs: string) => Promise<boolean> = (abs) => fs.stat(abs).then((s) => s.isDirectory(), () => false),
): Required<Pick<ExpandDeps, 'isFolder' | 'listFolder'>> {
  return {
    isFolder: (rel) => isDirectory(absolute(rel)),
    listFolder: async (rel) => {
      const files = await filesIn(absolute(rel));
      return files.map((f) => (rel === '.' ? path.basename(f) : `${rel}/${path.basename(f)}`));
    },
  };
}

/**
 * Expands the mentions of `text`: every mentioned file, and the files directly in every mentioned
 * folder, are read in one `read` request (raw content, no line numbers); each mention is replaced
 * by `'path' (see below for file content)` and the `<ReadResults>` XML is appended.
 */
export async function expandMentions(text: string, deps: ExpandDeps): Promise<ExpandedMessage> {
  const mentions = parseMentions(text);
  if (mentions.length === 0) {
    return { text, images: [], mentions, paths: [] };
  }
  const root = deps.root;
  if (root === undefined && (!deps.listFolder || !deps.isFolder)) {
    throw new Error('expandMentions: without a root, listFolder and isFolder are needed');
  }
  const listFolder = deps.listFolder ?? ((rel: string) => listFolderFiles(root!, rel));
  const isFolder = deps.isFolder ??
    ((rel: string) => fs.stat(path.join(root!, rel)).then((s) => s.isDirectory(), () => false));
  const paths: string[] = [];
  const seen = new Set<string>();
  const add = (p: string): void => {
    if (!seen.has(p)) {
      seen.add(p);
      paths.push(p);
    }
  };
  const kinds = new Map<string, boolean>();
  for (const mention of mentions) {
    if (kinds.has(mention.path)) {
      continue;
    }
    const folder = mention.folder || mention.path === '.' || (await isFolder(mention.path));
    kinds.set(mention.path, folder);
    if (!folder) {
      add(mention.path);
      continue;
    }
    let files: string[];
    try {
      files = await listFolder(mention.path);
    } catch {
      // A folder that is not there: read the path, so the answer says FILE_NOT_FOUND.
      files = [mention.path];
    }
    files.forEach(add);
  }
  let replaced = '';
  let at = 0;
  for (const mention of mentions) {
    const shown = mention.path === '.' ? '/' : kinds.get(mention.path) ? `${mention.path}/` : mention.path;
    const what = kinds.get(mention.path) ? 'folder content' : 'file content';
    replaced += `${text.slice(at, mention.start)}'${shown}' (see below for ${what})`;
    at = mention.end;
  }
  replaced += text.slice(at);
  if (paths.length === 0) {
    return { text: replaced, images: [], mentions, paths };
  }
  const result = await deps.read({ paths, cwd: root, lineNumbers: false });
  return {
    text: `${replaced}\n\n${result.xml}`,
    images: result.images,
    mentions,
    paths,
    result,
  };
}
