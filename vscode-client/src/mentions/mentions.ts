// @-mentions in a chat message or a prompt, as Cline writes them: `@/relative/path`, `@/folder/`
// and `@"/path with spaces.md"` (a space may also be escaped: `@/my\ file.md`), and written
// without the slash: `@src/main.c`, `@docs/`, `@"docs/my file.md"`. Paths are relative to the
// workspace folder (in a multi-root workspace, `@/name/...` is in the folder called name). A
// mention without slash or quotes (`@src/main.c`) is only one when that path exists, so that
// decorators (`@app.route`) and handles are left alone; nothing in Markdown code (fenced blocks,
// `inline code`) is a mention. Plain Node: no vscode import.

import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ImageInfo, ReadResult, XmlReadParams } from '../protocol';
import { reasonInWords } from '../summary';

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
  /**
   * Written without a leading slash or quotes (`@src/main.c`): a mention only if the path exists
   * (expandMentions checks; parseMentions cannot).
   */
  bare: boolean;
}

// `@` must start the text or follow whitespace or an opening bracket or quote, so that e-mail
// addresses (`me@host`) and URLs (`https://host/@/x`) are not mentions. Then a quoted path
// (group 1), a path from the folder's top (group 2), or a bare relative path (group 3).
const MENTION = /(?<=^|[\s([{<'"`])@(?:"(\/?[^"\r\n]+)"|(\/(?:\\ |[^\s"'`<>\\])*)|((?:\\ |[^\s"'`<>\\@/()[\]{},;|*?])(?:\\ |[^\s"'`<>\\@()[\]{},;|*?])*))/g;
const TRAILING_PUNCTUATION = /[.,;:!?)\]}]+$/;
/**
 * A bare mention must look like a path: a slash, a dot between name characters (`a.txt`), or a
 * dot-file's name (`.env`, `.gitignore`).
 */
const PATH_LIKE = /\/|[^.]\.[^.]|^\.[^./]/;

/**
 * Where `text` holds Markdown code: fenced blocks (``` or ~~~ lines) and `inline code` spans, as
 * [start, end) offsets, in order.
 */
export function codeRanges(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const fence = /^ {0,3}(`{3,}|~{3,})[^\n]*(?:\n|$)/gm;
  let searchFrom = 0;
  const fenced: Array<[number, number]> = [];
  for (;;) {
    fence.lastIndex = searchFrom;
    const open = fence.exec(text);
    if (!open) {
      break;
    }
    const marker = open[1]!;
    const close = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}[ \\t]*$`, 'gm');
    close.lastIndex = open.index + open[0].length;
    const end = close.exec(text);
    const stop = end ? end.index + end[0].length : text.length;
    fenced.push([open.index, stop]);
    searchFrom = stop;
  }
  // Inline code between the fences: a run of backticks closed by a run of the same length.
  let at = 0;
  for (const [fs0, fe] of [...fenced, [text.length, text.length] as [number, number]]) {
    const part = text.slice(at, fs0);
    const tick = /(?<!`)`+(?!`)/g;
    for (let m = tick.exec(part); m; m = tick.exec(part)) {
      const closing = new RegExp(`(?<!\`)\`{${m[0].length}}(?!\`)`, 'g');
      closing.lastIndex = m.index + m[0].length;
      const c = closing.exec(part);
      if (!c) {
        continue;
      }
      ranges.push([at + m.index, at + c.index + c[0].length]);
      tick.lastIndex = c.index + c[0].length;
    }
    if (fe > fs0) {
      ranges.push([fs0, fe]);
    }
    at = fe;
  }
  return ranges.sort((a, b) => a[0] - b[0]);
}

function inRanges(ranges: Array<[number, number]>, offset: number): boolean {
  return ranges.some(([s, e]) => offset >= s && offset < e);
}

/**
 * Finds the mentions in `text`, in order. Mentions of paths outside the folder (`@/../x`) and
 * anything in Markdown code are left out; bare ones (`@src/a.c`) are candidates (`bare: true`)
 * that only count when the path exists.
 */
export function parseMentions(text: string): Mention[] {
  const mentions: Mention[] = [];
  const code = text.includes('`') || text.includes('~~~') ? codeRanges(text) : [];
  for (const m of text.matchAll(MENTION)) {
    const start = m.index ?? 0;
    if (inRanges(code, start)) {
      continue;
    }
    let raw = m[0];
    let written: string;
    const bare = m[3] !== undefined;
    if (m[1] !== undefined) {
      written = m[1].startsWith('/') ? m[1] : `/${m[1]}`;
    } else {
      // A sentence may end right after a mention: `see @/src/a.c.`
      const unquoted = m[2] ?? m[3] ?? '';
      const cut = unquoted.replace(TRAILING_PUNCTUATION, '');
      raw = raw.slice(0, raw.length - (unquoted.length - cut.length));
      written = cut.replace(/\\ /g, ' ');
      if (bare) {
        if (!PATH_LIKE.test(written) || written.includes('://')) {
          continue;
        }
        written = `/${written}`;
      }
    }
    const folder = written.endsWith('/');
    const rel = normalizeRelative(written);
    if (rel === undefined) {
      continue;
    }
    mentions.push({ raw, start, end: start + raw.length, path: rel, folder, bare });
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
  /** Whether `rel` exists (decides bare mentions such as `@src/a.c`). Default: fs.stat. */
  exists?(rel: string): Promise<boolean>;
  /** More paths to read in the same request, after the mentioned ones (chat references). */
  extraPaths?: string[];
  /** Ask for pictures: PDF pages rendered, SVG as a picture (`render: true` on every path). */
  render?: boolean;
  /** `images` params of the request (the settings' `maxDimension`). */
  images?: XmlReadParams['images'];
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
  exists: (abs: string) => Promise<boolean> = (abs) => fs.stat(abs).then(() => true, () => false),
): Required<Pick<ExpandDeps, 'isFolder' | 'listFolder' | 'exists'>> {
  return {
    isFolder: (rel) => isDirectory(absolute(rel)),
    exists: (rel) => exists(absolute(rel)),
    listFolder: async (rel) => {
      const files = await filesIn(absolute(rel));
      return files.map((f) => (rel === '.' ? path.basename(f) : `${rel}/${path.basename(f)}`));
    },
  };
}

/**
 * Expands the mentions of `text`: every mentioned file, and the files directly in every mentioned
 * folder, are read in one `read` request (raw content, no line numbers); each mention is replaced
 * by `'path' (see below for file content)`, or `'path' (not read: REASON)` for a file that was
 * refused or is missing, and the `<ReadResults>` XML is appended.
 */
export async function expandMentions(text: string, deps: ExpandDeps): Promise<ExpandedMessage> {
  const candidates = parseMentions(text);
  const extra = deps.extraPaths ?? [];
  if (candidates.length === 0 && extra.length === 0) {
    return { text, images: [], mentions: candidates, paths: [] };
  }
  const root = deps.root;
  if (root === undefined && (!deps.listFolder || !deps.isFolder || !deps.exists)) {
    throw new Error('expandMentions: without a root, listFolder, isFolder and exists are needed');
  }
  const exists = deps.exists ?? ((rel: string) => fs.stat(path.join(root!, rel)).then(() => true, () => false));
  const mentions: Mention[] = [];
  for (const mention of candidates) {
    if (!mention.bare || (await exists(mention.path))) {
      mentions.push(mention);
    }
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
  extra.forEach(add);
  const rewrite = (failed: ReadonlyMap<string, string>): string => {
    let replaced = '';
    let at = 0;
    for (const mention of mentions) {
      const folder = kinds.get(mention.path);
      const shown = mention.path === '.' ? '/' : folder ? `${mention.path}/` : mention.path;
      const why = failed.get(mention.path);
      // A file that was not read says so where it is mentioned: nothing below would.
      const note = why ? `(not read: ${why})` : `(see below for ${folder ? 'folder content' : 'file content'})`;
      replaced += `${text.slice(at, mention.start)}'${shown}' ${note}`;
      at = mention.end;
    }
    return replaced + text.slice(at);
  };
  if (paths.length === 0) {
    return { text: rewrite(new Map()), images: [], mentions, paths };
  }
  const result = await deps.read({
    paths: deps.render ? paths.map((p) => ({ path: p, render: true })) : paths,
    cwd: root,
    lineNumbers: false,
    ...(deps.images ? { images: deps.images } : {}),
  });
  // Without expansion, files[i] answers paths[i].
  const failed = new Map<string, string>();
  result.files.forEach((file, i) => {
    const why = reasonInWords(file);
    if (why && paths[i] !== undefined) {
      failed.set(paths[i]!, why);
    }
  });
  return {
    text: `${rewrite(failed)}\n\n${result.xml}`,
    images: result.images,
    mentions,
    paths,
    result,
  };
}

/** A mention being typed: what is before the cursor from its `@`. */
export interface TypedMention {
  /** Offset of the `@` in the text given. */
  start: number;
  /** Opened with a quote: `@"/docs/my fi`. */
  quoted: boolean;
  /** The path typed so far, without `@`, quote or leading slash: `docs/my fi`. */
  typed: string;
}

const TYPING_QUOTED = /(?<=^|[\s([{<'"`])@"(\/?)([^"\r\n]*)$/;
const TYPING = /(?<=^|[\s([{<'"`])@(\/?)((?:\\ |[^\s"'`<>\\@])*)$/;

/**
 * The mention the cursor is in, given the text before the cursor (for completion): `@` at the
 * start or after a space or opening bracket, then a path without spaces (or, after `@"`, any path),
 * outside Markdown code. Undefined elsewhere (`me@host`, after a space that ended the mention).
 */
export function typingMention(before: string): TypedMention | undefined {
  const m = TYPING_QUOTED.exec(before) ?? TYPING.exec(before);
  if (!m) {
    return undefined;
  }
  const start = m.index;
  if ((before.includes('`') || before.includes('~~~')) && codeRanges(before).some(([s, e]) => start >= s && (start < e || e === before.length))) {
    return undefined;
  }
  // An inline code span opened earlier on the line and not closed yet.
  const line = before.slice(before.lastIndexOf('\n', start) + 1, start);
  let open = line;
  for (const [s, e] of codeRanges(line).reverse()) {
    open = open.slice(0, s) + open.slice(e);
  }
  if (open.includes('`')) {
    return undefined;
  }
  return { start, quoted: m[0][1] === '"', typed: m[2]!.replace(/\\ /g, ' ') };
}
