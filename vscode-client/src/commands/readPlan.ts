// What the read command does with a plan (`read` with `plan: true`): which of its entries to read,
// whether to ask first, and the words of the question and of the summary. Plain Node: no vscode
// import.

import { FileInfo, ReadNotice, ReadResult } from '../protocol';
import { formatBytes, formatCount } from '../format';
import { fileProblems, linesShown, listSome, plural } from '../summary';

/** The files a plan says to read, and what it left out. */
export interface PlannedRead {
  /** Paths to read, in plan order (an expanded folder's files in its place). */
  paths: string[];
  /** Their plan entries. */
  entries: FileInfo[];
  /** Estimated tokens of reading them. */
  tokens: number;
  bytes: number;
  /** Files of the expansion that files.exclude hides, left out. */
  hidden: number;
  /** Binary files the expansion listed without content, left out. */
  binary: number;
  /** Selected folders that gave no file (the daemon's words). */
  empty: FileInfo[];
  notices: ReadNotice[];
}

/**
 * Chooses what to read from a plan of `asked` (the paths as sent; `folders` the indices of
 * those that are folders): every entry of a file, but files expanded from a folder that
 * `hidden(path)` says the Explorer hides, binary files listed without content, the entry of a
 * folder that gave none, and a file already chosen (selected and also in a selected folder).
 */
export function choosePlanned(plan: ReadResult, folders: ReadonlySet<number>, hidden: (path: string) => boolean): PlannedRead {
  const out: PlannedRead = { paths: [], entries: [], tokens: 0, bytes: 0, hidden: 0, binary: 0, empty: [], notices: plan.notices ?? [] };
  let next = 0;
  const chosen = new Set<string>();
  for (const entry of plan.files) {
    const source = entry.from ?? next;
    next = source + 1;
    if (chosen.has(entry.path)) {
      // Selected twice (a file, and the folder that holds it): read once.
      continue;
    }
    if (entry.from !== undefined) {
      if (hidden(entry.path)) {
        out.hidden++;
        continue;
      }
      if (entry.omitted === 'binary') {
        out.binary++;
        continue;
      }
    } else if (folders.has(source) && entry.code !== undefined) {
      out.empty.push(entry);
      continue;
    }
    chosen.add(entry.path);
    out.paths.push(entry.path);
    out.entries.push(entry);
    out.tokens += entry.tokens ?? 0;
    out.bytes += entry.code === undefined ? entry.bytes ?? 0 : 0;
  }
  return out;
}

/** The question before a big read and its detail: files, size, tokens, the biggest files, the notices. */
export function confirmationText(planned: PlannedRead, limit: number): { message: string; detail: string } {
  const n = planned.paths.length;
  const message = `readerd: read ${formatCount(n)} file${n === 1 ? '' : 's'} (${formatBytes(planned.bytes)}, about ${formatCount(planned.tokens)} tokens)?`;
  const biggest = [...planned.entries]
    .filter((e) => (e.tokens ?? 0) > 0)
    .sort((a, b) => (b.tokens ?? 0) - (a.tokens ?? 0))
    .slice(0, 5)
    .map((e) => `  ${e.path}: ${formatCount(e.tokens ?? 0)} tokens, ${formatBytes(e.bytes)}`);
  const lines = [
    `The plan passes readerd.confirmAboveTokens (${formatCount(limit)} tokens).`,
    ...(biggest.length ? ['Largest:', ...biggest] : []),
    ...planned.notices.map((notice) => `${notice.path}: ${notice.message}`),
  ];
  return { message, detail: lines.join('\n') };
}

/** Notices of a plan that are not about a cap the view shows (`capped`: the paths capped). */
function otherNotices(planned: PlannedRead, capped: ReadonlySet<string>): ReadNotice[] {
  return planned.notices.filter((n) => !(capped.has(n.path) && /past maxFiles/.test(n.message)));
}

/**
 * The summary after the read, in words: files read, lines shown, tokens, images; then each file
 * cut with what was shown of how much, each file refused or not read with the reason, what was
 * left out, each folder capped ("many/: 500 of 1,988 files"), the other notices. `pagesOf`
 * gives the PDF pages a file's content holds.
 */
export function readSummary(result: ReadResult, planned: PlannedRead, options: { caps?: string[]; capped?: ReadonlySet<string>; pagesOf?: (index: number) => number[] | undefined } = {}): string {
  const failed = result.files.filter((f) => f.code !== undefined);
  const total = result.files.length;
  const tokens = result.tokens ?? result.files.reduce((sum, f) => sum + (f.tokens ?? 0), 0);
  const left: string[] = [];
  if (planned.hidden) {
    left.push(`${planned.hidden} hidden by files.exclude`);
  }
  if (planned.binary) {
    left.push(`${planned.binary} binary`);
  }
  const problems = fileProblems(result, options.pagesOf);
  const lines = linesShown(result);
  // A cut file's size is the whole file's: said only when every file was shown whole.
  const size = problems.cut.length === 0 ? `, ${formatBytes(result.bytes)}` : '';
  const caps = options.caps ?? [];
  return `readerd: read ${formatCount(total - failed.length)} of ${plural(total, 'file')}` +
    ` (${plural(lines, 'line')}${problems.cut.length ? ' shown' : ''}${size}, about ${plural(tokens, 'token')}` +
    `${result.images.length ? `, ${plural(result.images.length, 'image')}` : ''})` +
    (caps.length ? `; capped by readerd.folderMaxFiles: ${caps.join('; ')} (Read the rest in the view)` : '') +
    (problems.cut.length ? `; ${listSome(problems.cut)}` : '') +
    (problems.failed.length ? `; ${listSome(problems.failed)}` : '') +
    (left.length ? `; left out: ${left.join(', ')}` : '') +
    otherNotices(planned, options.capped ?? new Set()).map((notice) => `; ${notice.path}: ${notice.message}`).join('');
}

/** Whether the summary is a warning: something was refused, not read, cut or left out. */
export function summaryIsWarning(result: ReadResult, planned: PlannedRead): boolean {
  const problems = fileProblems(result);
  return problems.failed.length > 0 || problems.cut.length > 0 || planned.notices.length > 0 || planned.binary > 0;
}
