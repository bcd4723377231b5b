// Puts read results back together: one result per workspace folder into one, in the order the
// paths were asked for, and the paths as the caller wrote them. Works on readerd's XML as it is
// written: tags whose attribute values have `<`, `>` and `'` escaped, text in CDATA sections,
// notices as escaped text. Folders and globs a request expanded (`expand`) give several files
// each, with `from` naming their pattern, and `<Notice>` elements after their last file: both are
// carried over with `from` renumbered in the whole request. Plain Node: no vscode import.

import { FileInfo, ImageInfo, ReadNotice, ReadResult } from '../protocol';

interface Token {
  kind: 'tag' | 'cdata' | 'text';
  text: string;
}

/** Splits XML into tags, CDATA sections and the text between them. */
function tokens(xml: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < xml.length) {
    if (xml.startsWith('<![CDATA[', i)) {
      const end = xml.indexOf(']]>', i);
      const stop = end < 0 ? xml.length : end + 3;
      out.push({ kind: 'cdata', text: xml.slice(i, stop) });
      i = stop;
    } else if (xml[i] === '<') {
      const end = xml.indexOf('>', i);
      const stop = end < 0 ? xml.length : end + 1;
      out.push({ kind: 'tag', text: xml.slice(i, stop) });
      i = stop;
    } else {
      const next = xml.indexOf('<', i);
      const stop = next < 0 ? xml.length : next;
      out.push({ kind: 'text', text: xml.slice(i, stop) });
      i = stop;
    }
  }
  return out;
}

/**
 * A `<ReadResults>` document cut into its start, one piece per `<Content>` (with the white space
 * after it), and its end. `notices[j]` are the `<Notice>` elements (with their white space) that
 * follow piece j.
 */
interface SplitXml {
  head: string;
  contents: Token[][];
  notices: Token[][][];
  tail: string;
}

/** Takes one element starting at all[k] (with the white space after it) into `piece`; returns the next index. */
function element(all: Token[], k: number, piece: Token[]): number {
  let depth = 0;
  do {
    const t = all[k++]!;
    piece.push(t);
    if (t.kind === 'tag') {
      if (t.text.startsWith('</')) {
        depth--;
      } else if (!t.text.endsWith('/>')) {
        depth++;
      }
    }
  } while (depth > 0 && k < all.length);
  while (k < all.length && all[k]!.kind === 'text' && all[k]!.text.trim() === '') {
    piece.push(all[k++]!);
  }
  return k;
}

function split(xml: string): SplitXml {
  const all = tokens(xml);
  let k = 0;
  let head = '';
  while (k < all.length && !(all[k]!.kind === 'tag' && all[k]!.text.startsWith('<Content'))) {
    if (all[k]!.kind === 'tag' && all[k]!.text.startsWith('</ReadResults')) {
      break;
    }
    head += all[k]!.text;
    k++;
  }
  const contents: Token[][] = [];
  const notices: Token[][][] = [];
  while (k < all.length && all[k]!.kind === 'tag' && (all[k]!.text.startsWith('<Content') || all[k]!.text.startsWith('<Notice'))) {
    const piece: Token[] = [];
    if (all[k]!.text.startsWith('<Notice') && contents.length > 0) {
      k = element(all, k, piece);
      notices[contents.length - 1]!.push(piece);
      continue;
    }
    k = element(all, k, piece);
    contents.push(piece);
    notices.push([]);
  }
  const tail = all.slice(k).map((t) => t.text).join('');
  return { head, contents, notices, tail };
}

const ATTRIBUTE_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  "'": '&apos;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

/**
 * Escapes an attribute value as readerd writes it between single quotes (formatters/xml.c):
 * markup characters and the quote as entities, tab and line ends as references, other control
 * characters (which XML 1.0 forbids) as U+FFFD.
 */
export function escapeAttribute(value: string): string {
  return value.replace(/[&<>'\t\n\r\x00-\x1f]/g, (c) => ATTRIBUTE_ESCAPES[c] ?? '\uFFFD');
}

/** Rewrites one `<Content>`: its `path` attribute, and its `image='k'` references through `mapImage`. */
function rewrite(piece: Token[], given: string | undefined, mapImage: (k: number) => number): string {
  return piece.map((t, n) => {
    if (t.kind !== 'tag' || t.text.startsWith('</')) {
      return t.text;
    }
    let tag = t.text.replace(/ image='(\d+)'/, (_, k: string) => ` image='${mapImage(Number(k))}'`);
    if (n === 0 && given !== undefined) {
      tag = tag.replace(/^<Content path='[^']*'/, `<Content path='${escapeAttribute(given)}'`);
    }
    return tag;
  }).join('');
}

/** The images a `<Content>` refers to, in the order it names them. */
function imagesOf(piece: Token[]): number[] {
  const out: number[] = [];
  for (const t of piece) {
    const m = t.kind === 'tag' ? / image='(\d+)'/.exec(t.text) : null;
    if (m) {
      out.push(Number(m[1]));
    }
  }
  return out;
}

/** One part of a request split by workspace folder: its result and which of the request's paths it read. */
export interface ResultPart {
  result: ReadResult;
  /** indices[j] is the index in the whole request of the part's j-th path. */
  indices: number[];
  /** The part's paths as sent (default: the request's paths as given). */
  sent?: string[];
}

/**
 * The path a file expanded from `sent` (sent as the pattern, given as `given`) has for the
 * caller: readerd joins the pattern as written with the file's path under it (`.` gives the bare
 * relative path), so the part of `given` before `sent` goes in front.
 */
export function expandedPath(file: string, sent: string, given: string): string {
  if (sent === given) {
    return file;
  }
  if (sent === '.' || sent === './') {
    return `${given.replace(/\/+$/, '')}/${file}`;
  }
  if (given.endsWith(sent)) {
    return given.slice(0, given.length - sent.length) + file;
  }
  return file;
}

/** A notice's message with the glob it suggests (`a glob such as "src/**\/*.c"`) written from the caller's path. */
export function noticeMessage(message: string, sent: string, given: string): string {
  return message.replace(/(glob such as ")([^"]*)(")/, (_, open: string, glob: string, close: string) => `${open}${expandedPath(glob, sent, given)}${close}`);
}

/**
 * Which of the part's paths each of its files answers: an expanded file names its pattern in
 * `from`, every other file answers the next path (each path gives at least one entry, in order).
 */
export function sourcesOf(files: FileInfo[], count: number): number[] {
  const out: number[] = [];
  let next = 0;
  for (const file of files) {
    const local = file.from ?? next;
    if (local < 0 || local >= count) {
      throw new Error(`cannot merge: a file answers path ${local} of ${count}`);
    }
    out.push(local);
    next = local + 1;
  }
  return out;
}

/** Replaces the value of attribute `name` in a start tag (nothing when it is absent). */
function setAttribute(tag: string, name: string, value: string): string {
  return tag.replace(new RegExp(`( ${name}=')[^']*(')`), `$1${value}$2`);
}

/**
 * Merges the parts of one request into the result the whole request would have had: files and
 * `<Content>` elements in request order (the files of an expanded folder or glob in its place),
 * images renumbered in that order, `from` and notices renumbered to the whole request's paths,
 * `bytes`, `lines`, `tokens` and `tokensTotal` summed. `given[i]` replaces the path of file i
 * (the path as the caller wrote it), and is put in front of the files expanded from it.
 */
export function mergeResults(parts: ResultPart[], given: string[]): ReadResult {
  const count = given.length;
  type Slot = { part: ResultPart; local: number; file: number; piece: Token[]; notices: Token[][] };
  const slots: Slot[][] = Array.from({ length: count }, () => []);
  const splits = parts.map((part) => split(part.result.xml));
  parts.forEach((part, p) => {
    const { contents, notices } = splits[p]!;
    if (contents.length !== part.result.files.length) {
      throw new Error(`cannot merge: ${contents.length} <Content> elements for ${part.result.files.length} files`);
    }
    sourcesOf(part.result.files, part.indices.length).forEach((local, j) => {
      slots[part.indices[local]!]!.push({ part, local, file: j, piece: contents[j]!, notices: notices[j]! });
    });
  });
  const files: FileInfo[] = [];
  const images: ImageInfo[] = [];
  const pieces: string[] = [];
  const notices: ReadNotice[] = [];
  let anyNotices = false;
  for (let i = 0; i < count; i++) {
    for (const slot of slots[i]!) {
      const renumbered = new Map<number, number>();
      const source = slot.part.result.files[slot.file]!;
      const sent = slot.part.sent?.[slot.local] ?? given[i]!;
      const name = source.from !== undefined ? expandedPath(source.path, sent, given[i]!) : given[i]!;
      for (const k of imagesOf(slot.piece)) {
        const image = slot.part.result.images[k];
        if (image && !renumbered.has(k)) {
          renumbered.set(k, images.length);
          images.push({ ...image, path: name });
        }
      }
      const file: FileInfo = { ...source, path: name };
      if (file.image !== undefined) {
        file.image = renumbered.get(file.image) ?? file.image;
      }
      if (file.from !== undefined) {
        file.from = i;
      }
      files.push(file);
      let piece = rewrite(slot.piece, name, (k) => renumbered.get(k) ?? k);
      if (source.from !== undefined) {
        piece = piece.replace(/^(<Content [^>]*? from=')\d+(')/, `$1${i}$2`);
      }
      pieces.push(piece);
      for (const notice of slot.notices) {
        pieces.push(notice.map((t, n) => {
          if (n === 0 && t.kind === 'tag') {
            return setAttribute(setAttribute(t.text, 'path', escapeAttribute(given[i]!)), 'from', String(i));
          }
          return t.kind === 'tag' ? t.text : noticeMessage(t.text, sent, given[i]!);
        }).join(''));
      }
    }
  }
  parts.forEach((part) => {
    anyNotices ||= part.result.notices !== undefined;
    for (const n of part.result.notices ?? []) {
      const i = part.indices[n.from];
      if (i !== undefined) {
        notices.push({ ...n, path: given[i]!, from: i, message: noticeMessage(n.message, part.sent?.[n.from] ?? given[i]!, given[i]!) });
      }
    }
  });
  notices.sort((a, b) => a.from - b.from);
  const sum = (key: 'bytes' | 'lines' | 'tokens' | 'tokensTotal'): number | undefined =>
    parts.some((p) => p.result[key] !== undefined) ? parts.reduce((total, p) => total + (p.result[key] ?? 0), 0) : undefined;
  const bytes = sum('bytes') ?? 0;
  const lines = sum('lines') ?? 0;
  const tokens = sum('tokens');
  const tokensTotal = sum('tokensTotal');
  const first = splits[0]!;
  const head = first.head.replace(/^<ReadResults[^>]*>/, (tag) => {
    let out = setAttribute(setAttribute(tag, 'bytes', String(bytes)), 'lines', String(lines));
    out = tokens !== undefined ? setAttribute(out, 'tokens', String(tokens)) : out;
    return tokensTotal !== undefined ? setAttribute(out, 'tokensTotal', String(tokensTotal)) : out;
  });
  const merged: ReadResult = { ...parts[0]!.result, xml: head + pieces.join('') + first.tail, images, files, bytes, lines };
  delete merged.notices;
  if (anyNotices) {
    merged.notices = notices;
  }
  if (tokens !== undefined) {
    merged.tokens = tokens;
  }
  if (tokensTotal !== undefined) {
    merged.tokensTotal = tokensTotal;
  }
  return merged;
}

/** Gives a result the paths as the caller wrote them (`given[i]` for file i), in its JSON and XML. */
export function restorePaths(result: ReadResult, given: string[], sent?: string[]): ReadResult {
  return mergeResults([{ result, indices: given.map((_, i) => i), sent }], given);
}
