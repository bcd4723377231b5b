// Puts read results back together: one result per workspace folder into one, in the order the
// paths were asked for, and the paths as the caller wrote them. Works on readerd's XML as it is
// written: tags whose attribute values have `<`, `>` and `'` escaped, text in CDATA sections,
// notices as escaped text. Plain Node: no vscode import.

import { FileInfo, ImageInfo, ReadResult } from './protocol';

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

/** A `<ReadResults>` document cut into its start, one piece per `<Content>` (with the white space after it), and its end. */
interface SplitXml {
  head: string;
  contents: Token[][];
  tail: string;
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
  while (k < all.length && all[k]!.kind === 'tag' && all[k]!.text.startsWith('<Content')) {
    const piece: Token[] = [];
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
    while (k < all.length && all[k]!.kind === 'text') {
      piece.push(all[k++]!);
    }
    contents.push(piece);
  }
  const tail = all.slice(k).map((t) => t.text).join('');
  return { head, contents, tail };
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
}

/**
 * Merges the parts of one request into the result the whole request would have had: files and
 * `<Content>` elements in request order, images renumbered in that order, `bytes` and `lines`
 * summed. `given[i]` replaces the path of file i (the path as the caller wrote it).
 */
export function mergeResults(parts: ResultPart[], given: string[]): ReadResult {
  const count = given.length;
  const slots: Array<{ part: ResultPart; local: number; piece: Token[] } | undefined> = new Array(count);
  const splits = parts.map((part) => split(part.result.xml));
  parts.forEach((part, p) => {
    const pieces = splits[p]!.contents;
    if (pieces.length !== part.indices.length || part.result.files.length !== part.indices.length) {
      throw new Error(`cannot merge: ${pieces.length} <Content> elements for ${part.indices.length} paths`);
    }
    part.indices.forEach((index, local) => (slots[index] = { part, local, piece: pieces[local]! }));
  });
  const files: FileInfo[] = [];
  const images: ImageInfo[] = [];
  const pieces: string[] = [];
  for (let i = 0; i < count; i++) {
    const slot = slots[i]!;
    const renumbered = new Map<number, number>();
    for (const k of imagesOf(slot.piece)) {
      const image = slot.part.result.images[k];
      if (image && !renumbered.has(k)) {
        renumbered.set(k, images.length);
        images.push({ ...image, path: given[i]! });
      }
    }
    const file: FileInfo = { ...slot.part.result.files[slot.local]!, path: given[i]! };
    if (file.image !== undefined) {
      file.image = renumbered.get(file.image) ?? file.image;
    }
    files.push(file);
    pieces.push(rewrite(slot.piece, given[i], (k) => renumbered.get(k) ?? k));
  }
  const bytes = parts.reduce((sum, p) => sum + p.result.bytes, 0);
  const lines = parts.reduce((sum, p) => sum + p.result.lines, 0);
  const first = splits[0]!;
  const head = first.head.replace(/^<ReadResults bytes='\d+' lines='\d+'/, `<ReadResults bytes='${bytes}' lines='${lines}'`);
  return { xml: head + pieces.join('') + first.tail, images, files, bytes, lines };
}

/** Gives a result the paths as the caller wrote them (`given[i]` for file i), in its JSON and XML. */
export function restorePaths(result: ReadResult, given: string[]): ReadResult {
  return mergeResults([{ result, indices: given.map((_, i) => i) }], given);
}
