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

/**
 * Where a file was cut, or what was left out of it: "cut at line 817 of 400,000", "cut at page 20
 * of 63", "left out by the token budget". Undefined for a file shown whole (or not read).
 */
export function cutInWords(file: FileInfo): string | undefined {
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
  const last = file.shown?.[1];
  if (file.type === 'pdf') {
    return last !== undefined && file.pages ? `cut at page ${count(last)} of ${count(file.pages)}` : 'some pages left out';
  }
  if (file.type === 'notebook' && file.cells) {
    return last !== undefined ? `cut at cell ${count(last)} of ${count(file.cells)}` : 'some cells left out';
  }
  if (file.type === 'image') {
    return file.tiles ? `some of its ${count(file.tiles)} tiles left out (image budget)` : 'partly left out';
  }
  if (last !== undefined && file.lines !== undefined) {
    const first = file.shown![0];
    return first > 1 ? `lines ${count(first)}-${count(last)} of ${count(file.lines)} shown` : `cut at line ${count(last)} of ${count(file.lines)}`;
  }
  return 'cut';
}

/** The problems of a read, one phrase per file: ".env refused: excluded by readerd.exclude", "big.log cut at line 817 of 400,000". */
export function fileProblems(result: Pick<ReadResult, 'files'>): { failed: string[]; cut: string[] } {
  const failed: string[] = [];
  const cut: string[] = [];
  for (const file of result.files) {
    const why = reasonInWords(file);
    if (why) {
      failed.push(`${file.path} ${failureVerb(file)}: ${why}`);
      continue;
    }
    const where = cutInWords(file);
    if (where) {
      cut.push(`${file.path} ${where}`);
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
