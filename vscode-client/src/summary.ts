// What a read did, in words a person reads: why a file was not read (never a bare code), where a
// file was cut, and whether the summary deserves a warning. Plain Node: no vscode import.

import { FileInfo, ReadResult } from './protocol';

/** `12,345`. */
function count(n: number): string {
  return n.toLocaleString('en-US');
}

/**
 * Why a file was not read, as a sentence fragment: "excluded by readerd.exclude", "no such file".
 * Undefined for a file that was read.
 */
export function reasonInWords(file: Pick<FileInfo, 'code' | 'error'>): string | undefined {
  const error = file.error?.trim();
  const detail = error ? `: ${error}` : '';
  switch (file.code) {
    case undefined:
      return undefined;
    case 'ACCESS_DENIED':
      if (error && /exclude/i.test(error)) {
        return 'excluded by readerd.exclude';
      }
      if (error && /outside/i.test(error)) {
        return 'outside the workspace folder (readerd.confineToWorkspace)';
      }
      return error && !/^permission denied$/i.test(error) ? `access denied${detail}` : 'permission denied';
    case 'FILE_NOT_FOUND':
      return error && error !== 'no such file' ? `not found${detail}` : 'no such file';
    case 'IS_DIRECTORY':
      return 'it is a folder';
    case 'NOT_REGULAR_FILE':
      return 'not a regular file (a pipe, socket or device)';
    case 'FILE_TOO_LARGE':
      return `too large${detail}`;
    case 'UNSUPPORTED_FORMAT':
      return `a binary file or a format readerd cannot read${detail}`;
    case 'CORRUPTED_FILE':
      return `damaged or unreadable${detail}`;
    case 'CONVERSION_FAILED':
      return `could not be converted${detail}`;
    case 'READ_ERROR':
      return `an I/O error while reading${detail}`;
    case 'PASSWORD_PROTECTED':
      return `protected by a password${detail}`;
    case 'PAGE_OUT_OF_RANGE':
      return `the pages asked for are past its end${detail}`;
    case 'CANCELLED':
      return 'the read was cancelled';
    default:
      return error ? `could not be read: ${error}` : 'could not be read';
  }
}

/** "refused" for what the fence keeps out, "not read" for the rest. */
export function failureVerb(file: Pick<FileInfo, 'code'>): string {
  return file.code === 'ACCESS_DENIED' ? 'refused' : 'not read';
}

/** "1 line", "2,000 lines". */
export function plural(n: number, what: string): string {
  return `${count(n)} ${what}${n === 1 ? '' : 's'}`;
}

/** "1–20" for the numbers shown (sorted), "1–3, 7" when they are not one run. */
export function rangeText(numbers: readonly number[]): string {
  const runs: string[] = [];
  for (let k = 0; k < numbers.length;) {
    let j = k;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j]! + 1) {
      j++;
    }
    runs.push(j > k ? `${count(numbers[k]!)}–${count(numbers[j]!)}` : count(numbers[k]!));
    k = j + 1;
  }
  return runs.join(', ');
}

/**
 * Where a file was cut, or what was left out of it, as what was shown of how much: "lines 1–872
 * of 380,631 shown", "pages 1–20 of 134 shown" (`pages`: the PDF pages the content holds),
 * "left out by the token budget". Undefined for a file shown whole (or not read).
 */
export function cutInWords(file: FileInfo, pages?: readonly number[]): string | undefined {
  if (file.code !== undefined) {
    return undefined;
  }
  if (file.omitted === 'budget') {
    return 'left out by the token budget';
  }
  if (file.omitted === 'binary') {
    return 'binary, listed without content';
  }
  if (!file.truncated) {
    return undefined;
  }
  if (file.type === 'pdf') {
    if (pages && pages.length > 0) {
      return `pages ${rangeText(pages)} of ${file.pages !== undefined ? count(file.pages) : '?'} shown`;
    }
    const last = file.shown?.[1];
    return last !== undefined && file.pages ? `pages ${count(file.shown![0])}–${count(last)} of ${count(file.pages)} shown` : `no page of ${file.pages ?? '?'} shown`;
  }
  const shown = file.shown;
  if (file.type === 'notebook' && file.cells) {
    return shown ? `cells ${count(shown[0])}–${count(shown[1])} of ${count(file.cells)} shown` : 'some cells left out';
  }
  if (file.type === 'image') {
    return file.tiles ? `some of its ${count(file.tiles)} tiles left out (image budget)` : 'partly left out';
  }
  if (shown && file.lines !== undefined) {
    return shown[0] === shown[1] ? `line ${count(shown[0])} of ${count(file.lines)} shown` : `lines ${count(shown[0])}–${count(shown[1])} of ${count(file.lines)} shown`;
  }
  return 'cut';
}

/** Lines a read shows: each text file's lines shown, not its length. */
export function linesShown(result: Pick<ReadResult, 'files'>): number {
  let n = 0;
  for (const f of result.files) {
    if (f.code !== undefined || f.omitted || f.type === 'image' || f.type === 'pdf') {
      continue;
    }
    n += f.shown ? f.shown[1] - f.shown[0] + 1 : f.lines ?? 0;
  }
  return n;
}

/** The problems of a read, one phrase per file: ".env refused: excluded by readerd.exclude", "big.log cut at line 817 of 400,000". */
export function fileProblems(result: Pick<ReadResult, 'files'>, pagesOf: (index: number) => number[] | undefined = () => undefined): { failed: string[]; cut: string[] } {
  const failed: string[] = [];
  const cut: string[] = [];
  for (const [index, file] of result.files.entries()) {
    const why = reasonInWords(file);
    if (why) {
      failed.push(`${file.path} ${failureVerb(file)}: ${why}`);
      continue;
    }
    const where = cutInWords(file, file.type === 'pdf' ? pagesOf(index) : undefined);
    if (where) {
      cut.push(`${file.path}: ${where}`);
    }
  }
  return { failed, cut };
}

/** At most `most` phrases, then "and N more". */
export function listSome(items: string[], most = 3): string {
  if (items.length <= most) {
    return items.join('; ');
  }
  return `${items.slice(0, most).join('; ')}; and ${items.length - most} more`;
}
