// What the results view shows of a read, taken from the result: each file's state (read, cut,
// refused), its content split from the <ReadResults> XML into blocks (text, PDF pages, the
// outline), the line numbers of `cat -n` kept once, and where a cut file continues as the
// daemon's notice names it. Plain Node: no vscode import.

import { FileInfo, ImageInfo, PathItem, ReadResult } from '../protocol';

/** One `cat -n` line: its number (undefined for a notice line the daemon wrote), its text. */
export interface NumberedLine {
  n?: number;
  text: string;
}

/** A part of a file's content: its text, or a picture (`image`, the index in `images`). */
export interface ContentBlock {
  /** "page 3", "outline", "cell 2"; undefined for the file's own text. */
  label?: string;
  text: string;
  image?: number;
}

/** Where a cut file goes on: the per-path options of the read that continues it. */
export interface Continuation {
  offset?: number;
  column?: number;
  limit?: number;
  pages?: string;
  /** The daemon's words, as it wrote them. */
  notice: string;
}

export type FileState = 'read' | 'cut' | 'refused' | 'omitted' | 'unchanged';

/** One file of the view. */
export interface FileView {
  index: number;
  info: FileInfo;
  state: FileState;
  blocks: ContentBlock[];
  /** The continuation of the file's last notice (more lines, pages), when it was cut. */
  more?: Continuation;
  /** Lines cut at a column (`… [N more characters cut; continue with offset=L, column=C]`). */
  restOfLines: Continuation[];
  images: number[];
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', apos: "'", quot: '"' };

function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, name: string) => {
    if (name.startsWith('#x')) {
      return String.fromCodePoint(parseInt(name.slice(2), 16));
    }
    if (name.startsWith('#')) {
      return String.fromCodePoint(parseInt(name.slice(1), 10));
    }
    return ENTITIES[name] ?? whole;
  });
}

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([A-Za-z_][\w.-]*)=(?:'([^']*)'|"([^"]*)")/g)) {
    out[m[1]!] = unescapeXml(m[2] ?? m[3] ?? '');
  }
  return out;
}

function blockLabel(name: string, attrs: Record<string, string>): string {
  const n = attrs.number ?? attrs.index ?? attrs.name;
  return `${name.toLowerCase()}${n !== undefined ? ` ${n}` : ''}`;
}

/**
 * Splits the body of one <Content> (the text between its tags) into blocks: CDATA and escaped
 * text joined, a child element (<Page>, <Outline>, <Cell>, ...) a block of its own, a child
 * carrying `image` a picture block.
 */
export function contentBlocks(body: string): ContentBlock[] {
  const blocks: ContentBlock[] = [{ text: '' }];
  let at = 0;
  while (at < body.length) {
    const lt = body.indexOf('<', at);
    const text = body.slice(at, lt < 0 ? body.length : lt);
    blocks[blocks.length - 1]!.text += unescapeXml(text);
    if (lt < 0) {
      break;
    }
    if (body.startsWith('<![CDATA[', lt)) {
      const end = body.indexOf(']]>', lt + 9);
      blocks[blocks.length - 1]!.text += body.slice(lt + 9, end < 0 ? body.length : end);
      at = end < 0 ? body.length : end + 3;
      continue;
    }
    const gt = body.indexOf('>', lt);
    if (gt < 0) {
      break;
    }
    const tag = body.slice(lt + 1, gt);
    at = gt + 1;
    if (tag.startsWith('/')) {
      blocks.push({ text: '' });
      continue;
    }
    const name = /^[A-Za-z][\w-]*/.exec(tag)?.[0] ?? 'part';
    const attrs = attributes(tag);
    const block: ContentBlock = { label: blockLabel(name, attrs), text: '' };
    if (attrs.image !== undefined && /^\d+$/.test(attrs.image)) {
      block.image = Number(attrs.image);
    }
    blocks.push(block);
    if (tag.endsWith('/')) {
      blocks.push({ text: '' });
    }
  }
  // Whitespace between elements is layout, not content.
  // (Checked and trimmed without copying or scanning a whole content: a read of 2,000 files is
  // split in the extension host before its view is drawn.)
  return blocks
    .map((b) => (b.label === undefined && !/\S/.test(b.text) ? { ...b, text: '' } : b))
    .filter((b) => b.label !== undefined || b.text !== '')
    .map((b) => {
      const from = b.text.startsWith('\n') ? 1 : 0;
      const to = b.text.endsWith('\n') && b.text.length > from ? b.text.length - 1 : b.text.length;
      return from === 0 && to === b.text.length ? b : { ...b, text: b.text.slice(from, to) };
    });
}

/**
 * The body of each top-level <Content> of a <ReadResults> document, in order (undefined for
 * one written `<Content .../>`). A body's CDATA may hold any text, `</Content>` included.
 */
export function contentBodies(xml: string): Array<string | undefined> {
  const reader = bodyReader(xml);
  const out: Array<string | undefined> = [];
  while (reader(out.length) !== END) {
    out.push(reader(out.length) as string | undefined);
  }
  return out;
}

/** What bodyReader answers past the last <Content>. */
const END = Symbol('end');

/**
 * The body of the i-th top-level <Content>, the document read only as far as needed (and
 * once): the view of a 2,000-file read looks at the first files' bodies only.
 */
function bodyReader(xml: string): (index: number) => string | undefined | typeof END {
  const out: Array<string | undefined> = [];
  let at = 0;
  let done = false;
  const next = (): void => {
    const start = xml.indexOf('<Content ', at);
    const gt = start < 0 ? -1 : xml.indexOf('>', start);
    if (gt < 0) {
      done = true;
      return;
    }
    if (xml[gt - 1] === '/') {
      out.push(undefined);
      at = gt + 1;
      return;
    }
    let i = gt + 1;
    for (;;) {
      const close = xml.indexOf('</Content>', i);
      if (close < 0) {
        out.push(xml.slice(gt + 1));
        done = true;
        return;
      }
      // A CDATA section before it may hold a `</Content>` as text: the body goes on after it.
      // (Looked for between here and the close only, not to the document's end.)
      const cdata = xml.substring(i, close).indexOf('<![CDATA[');
      if (cdata >= 0) {
        const end = xml.indexOf(']]>', i + cdata + 9);
        i = end < 0 ? xml.length : end + 3;
        continue;
      }
      out.push(xml.slice(gt + 1, close));
      at = close + 10;
      return;
    }
  };
  return (index) => {
    while (out.length <= index && !done) {
      next();
    }
    return index < out.length ? out[index] : END;
  };
}

const NUMBERED = /^ *(\d+)\t/;
const COLUMN_MARK = ' more characters cut; continue with offset=';
const COLUMN_CUT = / … \[(\d+) more characters cut; continue with offset=(\d+), column=(\d+)\]$/;

/**
 * Lines of a text block with their `cat -n` number taken off: numbered when every line that is
 * not a notice of the daemon (`… ...`) carries one, else numbered from `first` on.
 */
export function numberedLines(text: string, first: number | undefined): NumberedLine[] {
  const lines = text.split('\n');
  const isNotice = (l: string): boolean => l.startsWith('… ');
  const numbered = lines.every((l) => isNotice(l) || NUMBERED.test(l));
  let n = first;
  return lines.map((line) => {
    if (isNotice(line)) {
      return { text: line };
    }
    if (numbered) {
      const m = NUMBERED.exec(line)!;
      return { n: Number(m[1]), text: line.slice(m[0].length) };
    }
    return { n: n === undefined ? undefined : n++, text: line };
  });
}

/** The continuation a notice line names, if it names one. */
export function noticeContinuation(line: string): Continuation | undefined {
  if (!line.startsWith('… ')) {
    return undefined;
  }
  const pages = /continue with pages="?([0-9][0-9,-]*)"?/.exec(line);
  if (pages) {
    return { pages: pages[1]!, notice: line };
  }
  const tail = /read them with offset=(\d+), limit=(\d+)/.exec(line);
  if (tail) {
    return { offset: Number(tail[1]), limit: Number(tail[2]), notice: line };
  }
  const lines = /continue with offset=(\d+)(?:, column=(\d+))?/.exec(line);
  if (lines) {
    return { offset: Number(lines[1]), column: lines[2] ? Number(lines[2]) : undefined, notice: line };
  }
  return undefined;
}

function stateOf(info: FileInfo): FileState {
  if (info.code !== undefined) {
    return 'refused';
  }
  if (info.unchanged) {
    return 'unchanged';
  }
  if (info.omitted) {
    return 'omitted';
  }
  return info.truncated ? 'cut' : 'read';
}

/** Where a cut file goes on: the daemon's last notice, and the lines it cut at a column. */
function continuations(view: FileView): { more?: Continuation; restOfLines: Continuation[] } {
  const out: { more?: Continuation; restOfLines: Continuation[] } = { restOfLines: [] };
  if (view.state !== 'cut') {
    return out;
  }
  // Found by their markers rather than by going through every line.
  for (const block of view.blocks) {
    const t = block.text;
    const lineAt = (at: number): string => {
      const start = t.lastIndexOf('\n', at) + 1;
      const end = t.indexOf('\n', at);
      return t.slice(start, end < 0 ? t.length : end);
    };
    for (let at = t.startsWith('… ') ? 0 : t.indexOf('\n… '); at >= 0; at = t.indexOf('\n… ', at + 1)) {
      const more = noticeContinuation(lineAt(t[at] === '\n' ? at + 1 : at));
      if (more) {
        out.more = more;
      }
    }
    for (let at = t.indexOf(COLUMN_MARK); at >= 0; at = t.indexOf(COLUMN_MARK, at + 1)) {
      const line = lineAt(at);
      const col = COLUMN_CUT.exec(line);
      if (col && NUMBERED.test(line)) {
        out.restOfLines.push({ offset: Number(col[2]), column: Number(col[3]), limit: 1, notice: col[0].trim() });
      }
    }
  }
  out.more ??= impliedContinuation(view);
  return out;
}

/**
 * The files of a result as the view shows them, `files[i]` with the i-th <Content>. Nothing of
 * a file's content is looked at until it is asked for (its blocks when its card is opened, where
 * a cut file goes on when its card is drawn): a read of 2,000 files is not gone through before
 * its first files are shown.
 */
export function fileViews(result: ReadResult): FileView[] {
  const reader = bodyReader(result.xml);
  const bodyOf = (index: number): string | undefined => {
    const body = reader(index);
    return body === END ? undefined : body;
  };
  return result.files.map((info, index) => {
    const state = stateOf(info);
    const view = { index, info, state, images: [] } as unknown as FileView;
    let blocks: ContentBlock[] | undefined;
    let goesOn: ReturnType<typeof continuations> | undefined;
    Object.defineProperties(view, {
      blocks: { enumerable: true, get: () => (blocks ??= bodyOf(index) === undefined ? [] : contentBlocks(bodyOf(index)!)) },
      more: { enumerable: true, get: () => (goesOn ??= continuations(view)).more },
      restOfLines: { enumerable: true, get: () => (goesOn ??= continuations(view)).restOfLines },
    });
    result.images.forEach((img, k) => {
      if (img.path === info.path && (info.image === undefined || k >= info.image)) {
        view.images.push(k);
      }
    });
    if (info.image !== undefined && !view.images.includes(info.image)) {
      view.images.unshift(info.image);
    }
    return view;
  });
}

/**
 * Where a cut file goes on when its content names no place (pages asked for explicitly are shown
 * without a notice): the page after the last page shown, the line after the last line shown.
 */
function impliedContinuation(view: FileView): Continuation | undefined {
  const { info } = view;
  if (info.type === 'pdf') {
    const pages = view.blocks.filter((b) => b.label?.startsWith('page ')).map((b) => Number(b.label!.slice(5)));
    const last = pages.length ? Math.max(...pages) : 0;
    if (info.pages !== undefined && last < info.pages) {
      return { pages: `${last + 1}-`, notice: `pages ${last + 1}-${info.pages} not shown` };
    }
    return undefined;
  }
  if (info.shown && info.lines !== undefined && info.shown[1] < info.lines && (info.type === 'text' || info.type === undefined)) {
    return { offset: info.shown[1] + 1, notice: `lines ${info.shown[1] + 1}-${info.lines} not shown` };
  }
  return undefined;
}

/** The per-path item of the read that goes on where `more` says, for the file at `path`. */
export function continuationItem(path: string, more: Continuation): PathItem {
  const item: PathItem = { path };
  if (more.pages !== undefined) {
    item.pages = more.pages;
  }
  if (more.offset !== undefined) {
    item.offset = more.offset;
  }
  if (more.column !== undefined) {
    item.column = more.column;
  }
  if (more.limit !== undefined) {
    item.limit = more.limit;
  }
  return item;
}

/** A refusal in words: what happened, and the setting that decided it, if one did. */
export function refusalReason(info: FileInfo): { words: string; setting?: string } {
  const error = info.error ?? '';
  switch (info.code) {
    case 'ACCESS_DENIED':
      if (/exclude/i.test(error)) {
        return { words: 'Not read: its name matches a pattern of the readerd.exclude setting (files with secrets are never sent).', setting: 'readerd.exclude' };
      }
      if (/outside the workspace/i.test(error)) {
        return { words: 'Not read: it lies outside the workspace folder (readerd.confineToWorkspace), once links are followed.', setting: 'readerd.confineToWorkspace' };
      }
      return { words: `Not read: access denied (${error || 'permission denied'}).` };
    case 'FILE_NOT_FOUND':
      return { words: 'Not found: there is no such file.' };
    case 'IS_DIRECTORY':
      return { words: 'A folder, not a file: select it in the Explorer to read the files in it.' };
    case 'NOT_REGULAR_FILE':
      return { words: 'Not a regular file (a device, a pipe or a socket): it is never read.' };
    case 'FILE_TOO_LARGE':
      return { words: `Too large to read: ${error}.` };
    case 'UNSUPPORTED_FORMAT':
      return { words: `A format readerd does not read: ${error}.` };
    case 'CORRUPTED_FILE':
      return { words: `Damaged: ${error}.` };
    case 'PASSWORD_PROTECTED':
      return { words: 'Protected by a password.' };
    case 'PAGE_OUT_OF_RANGE':
      return { words: `The pages asked for are not in the document: ${error}.` };
    case 'CONVERSION_FAILED':
      return { words: `Could not be converted: ${error}.` };
    case 'CANCELLED':
      return { words: 'Cancelled before it was read.' };
    default:
      return { words: `Could not be read: ${error || info.code}.` };
  }
}

/** "logo.png", "manual.pdf, page 3", "tall.png, tile 2 of 7", "nb.ipynb, cell 4". */
export function imageLabel(img: ImageInfo): string {
  const page = img.page !== undefined ? `, page ${img.page}` : '';
  const cell = img.cell !== undefined ? `, cell ${img.cell}` : '';
  const tile = img.tileIndex !== undefined ? `, tile ${img.tileIndex} of ${img.tiles ?? '?'}` : '';
  return `${img.path}${page}${cell}${tile}`;
}

/** Estimated tokens of a result as the daemon counts them. */
export function resultTokens(result: Pick<ReadResult, 'tokens' | 'files'>): number {
  return result.tokens ?? result.files.reduce((sum, f) => sum + (f.tokens ?? 0), 0);
}
