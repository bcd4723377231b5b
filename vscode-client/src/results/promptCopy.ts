// What "Copy as Prompt Context" puts on the clipboard and says: the clipboard holds text, so the
// pictures of a result are named in the copied text and in the message instead of passing
// silently as `image='0'`; a copy past readerd.confirmAboveTokens is asked about first; the file
// names the pictures are saved under. Plain Node: no vscode import.

import { ImageInfo, ReadResult } from '../protocol';
import { formatCount } from '../format';
import { imageLabel, resultTokens } from './resultModel';

/** The copy of a result: its text, tokens (as the daemon counted them) and the pictures left out. */
export interface PromptCopy {
  text: string;
  tokens: number;
  /** Labels of the pictures not on the clipboard ("logo.png", "scan.pdf, page 1"). */
  leftOut: string[];
  /** What the message after the copy says. */
  message: string;
}

const plural = (n: number, what: string): string => `${formatCount(n)} ${what}${n === 1 ? '' : 's'}`;

/**
 * The copy of `result` (its `xml` is the text). With pictures, a line naming them goes into the
 * text, so the model that reads the paste knows they were not sent: an XML comment after the
 * opening <ReadResults> tag, else a last paragraph.
 */
export function promptCopy(result: ReadResult): PromptCopy {
  const tokens = resultTokens(result);
  const leftOut = result.images.map(imageLabel);
  const files = result.files.filter((f) => f.code === undefined).length;
  let text = result.xml;
  let message = `readerd: copied ${plural(files, 'file')} of prompt context (${plural(text.length, 'character')}, about ${plural(tokens, 'token')}).`;
  if (leftOut.length > 0) {
    const names = leftOut.slice(0, 10).join('; ') + (leftOut.length > 10 ? `; and ${formatCount(leftOut.length - 10)} more` : '');
    const note = `${plural(leftOut.length, 'image')} not included (copied as text): ${names}`;
    const open = /^<ReadResults\b[^>]*>\n?/m.exec(text);
    if (open) {
      const at = open.index + open[0].length;
      text = `${text.slice(0, at)}<!-- ${note.replace(/--/g, '- -')} -->\n${text.slice(at)}`;
    } else {
      text = `${text.replace(/\n*$/, '')}\n\n(${note})\n`;
    }
    message = `readerd: copied ${plural(files, 'file')} (about ${plural(tokens, 'token')}). ` +
      `${plural(leftOut.length, 'image')} not copied: the clipboard holds text. Add to Chat attaches them; Save Images writes them to a folder.`;
  }
  return { text, tokens, leftOut, message };
}

/** The question before copying `tokens` past `limit` (readerd.confirmAboveTokens). */
export function copyConfirmation(result: ReadResult, tokens: number, limit: number): { message: string; detail: string } {
  const biggest = [...result.files]
    .filter((f) => (f.tokens ?? 0) > 0)
    .sort((a, b) => (b.tokens ?? 0) - (a.tokens ?? 0))
    .slice(0, 5)
    .map((f) => `  ${f.path}: ${formatCount(f.tokens ?? 0)} tokens`);
  return {
    message: `readerd: copy about ${formatCount(tokens)} tokens of prompt context?`,
    detail: [`That is more than readerd.confirmAboveTokens (${formatCount(limit)} tokens); a model's context may not hold it.`,
      ...(biggest.length ? ['Largest:', ...biggest] : [])].join('\n'),
  };
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp', 'image/svg+xml': 'svg', 'image/bmp': 'bmp',
};

/**
 * File names to save a result's pictures under, one per picture, distinct: the file's base name,
 * with its page, cell or tile, and the extension of the picture's type
 * (`logo.png`, `scan-page-1.png`, `tall-tile-2.png`).
 */
export function imageFileNames(images: ImageInfo[]): string[] {
  const used = new Set<string>();
  return images.map((img) => {
    const base = img.path.split(/[\\/]/).pop()!.replace(/[^\w.+-]+/g, '_') || 'image';
    const stem = base.replace(/\.[^.]*$/, '') || 'image';
    const ext = EXTENSIONS[img.mediaType] ?? 'bin';
    const part = img.page !== undefined ? `-page-${img.page}` : img.cell !== undefined ? `-cell-${img.cell}` : '';
    const tile = img.tileIndex !== undefined ? `-tile-${img.tileIndex}` : '';
    let name = `${stem}${part}${tile}.${ext}`;
    for (let k = 2; used.has(name); k++) {
      name = `${stem}${part}${tile}-${k}.${ext}`;
    }
    used.add(name);
    return name;
  });
}
