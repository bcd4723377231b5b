// The page of the results view: totals, then each file read, cut (where, and "Read more") or
// refused (why), its pictures inline and its content with one set of line numbers. Only VS Code's
// theme variables colour it; every action is a button. Plain Node: no vscode import.

import { formatBytes, formatCount } from '../format';
import { ImageInfo, ReadNotice, ReadResult } from '../protocol';
import { Continuation, FileView, fileViews, imageLabel, numberedLines, refusalReason, resultTokens } from './resultModel';
import { PAGE_SCRIPT } from './resultsPage';
import { rangeText } from '../summary';

/** Escapes text for HTML content and quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const plural = (n: number, what: string): string => `${formatCount(n)} ${what}${n === 1 ? '' : 's'}`;

/** Lines of a file's content shown open at most; a longer content starts folded, unless it is the
 * result's only file (a "Read more", a file opened alone): then it is what the person came for. */
const OPEN_LINES = 400;

function imageTag(img: ImageInfo, k: number): string {
  // The media type and the data go into a data: URI: anything but an image type and base64 is refused.
  if (!/^image\/[a-z0-9.+-]+$/i.test(img.mediaType) || !/^[A-Za-z0-9+/=]*$/.test(img.data)) {
    return `<p class="note">picture ${k} cannot be shown (unexpected media type)</p>`;
  }
  const label = imageLabel(img);
  const size = img.originalWidth && img.originalHeight
    ? `${img.width} × ${img.height} px, scaled down from ${img.originalWidth} × ${img.originalHeight}`
    : `${img.width} × ${img.height} px`;
  return `<figure class="picture">
<img src="data:${escapeHtml(img.mediaType)};base64,${img.data}" alt="${escapeHtml(label)}" width="${Number(img.width) || 0}" height="${Number(img.height) || 0}">
<figcaption>${escapeHtml(label)} <span class="meta">(${size}, ${escapeHtml(img.mediaType)})</span></figcaption>
</figure>`;
}

function moreButton(file: FileView, more: Continuation, text: string): string {
  return `<button class="action" data-action="more" data-file="${file.index}"` +
    `${more.offset !== undefined ? ` data-offset="${more.offset}"` : ''}` +
    `${more.column !== undefined ? ` data-column="${more.column}"` : ''}` +
    `${more.limit !== undefined ? ` data-limit="${more.limit}"` : ''}` +
    `${more.pages !== undefined ? ` data-pages="${escapeHtml(more.pages)}"` : ''}>${escapeHtml(text)}</button>`;
}

function moreText(more: Continuation): string {
  if (more.pages !== undefined) {
    return `Read more: pages ${more.pages}`;
  }
  if (more.column !== undefined) {
    return `Read more: line ${more.offset} from character ${more.column}`;
  }
  return `Read more: from line ${formatCount(more.offset ?? 1)}`;
}

/** "lines 1-5 of 3,000 shown", "pages 1-20 of 134 shown", "cells 1-3 of 9". */
function whereText(file: FileView): string {
  const { info } = file;
  if (info.type === 'pdf') {
    const pages = file.blocks.filter((b) => b.label?.startsWith('page ')).map((b) => Number(b.label!.slice(5)));
    return pages.length ? `pages ${rangeText(pages)} of ${info.pages ?? '?'} shown` : `no page of ${info.pages ?? '?'} shown`;
  }
  if (info.type === 'image') {
    return info.tiles ? `tiles of ${info.tiles} shown in part (the image budget)` : 'the picture in part';
  }
  const unit = info.type === 'notebook' ? 'cells' : info.slides ? 'slides' : 'lines';
  const total = info.type === 'notebook' ? info.cells : info.slides ?? info.lines;
  return info.shown ? `${unit} ${formatCount(info.shown[0])}–${formatCount(info.shown[1])} of ${total === undefined ? '?' : formatCount(total)} shown` : `no ${unit} shown`;
}

function metaText(file: FileView): string {
  const { info } = file;
  const parts: string[] = [];
  if (info.type === 'text' && info.lines !== undefined) {
    parts.push(plural(info.lines, 'line'));
  }
  if (info.type === 'pdf' && info.pages !== undefined) {
    parts.push(plural(info.pages, 'page'));
  }
  if (info.type === 'image' && info.width) {
    parts.push(`${info.originalWidth ?? info.width} × ${info.originalHeight ?? info.height} px`);
  }
  if (info.bytes !== undefined) {
    parts.push(formatBytes(info.bytes));
  }
  if (info.code === undefined) {
    parts.push(`about ${plural(info.tokens ?? 0, 'token')}`);
  }
  if (info.encoding && info.encoding !== 'utf-8') {
    parts.push(info.encoding);
  }
  return parts.join(' · ');
}

function codeBlock(text: string, first: number | undefined): string {
  const rows = numberedLines(text, first).map((l) =>
    l.n === undefined
      ? `<div class="row notice"><span class="ln"></span><span class="tx">${escapeHtml(l.text)}</span></div>`
      : `<div class="row"><span class="ln">${l.n}</span><span class="tx">${escapeHtml(l.text)}</span></div>`);
  return `<div class="code" role="document">${rows.join('')}</div>`;
}

/** The content of an opened file: its pictures, then its text with one set of line numbers. */
export function fileContentHtml(file: FileView, result: ReadResult): string {
  const parts: string[] = [];
  const shownImages = new Set<number>();
  for (const block of file.blocks) {
    if (block.image !== undefined && result.images[block.image]) {
      shownImages.add(block.image);
      parts.push(imageTag(result.images[block.image]!, block.image));
    }
    if (block.text === '') {
      continue;
    }
    const first = file.info.type === 'text' || file.info.type === undefined ? file.info.shown?.[0] : undefined;
    const numbered = block.label === undefined && (file.info.type === 'text' || file.info.type === undefined);
    const body = numbered ? codeBlock(block.text, first) : `<pre class="plain">${escapeHtml(block.text)}</pre>`;
    parts.push(block.label ? `<h4 class="part">${escapeHtml(block.label)}</h4>${body}` : body);
  }
  const pictures = file.images.filter((k) => !shownImages.has(k) && result.images[k]).map((k) => imageTag(result.images[k]!, k));
  return pictures.join('\n') + parts.join('\n');
}

/** Lines of a file's content (its blocks' lines), 0 when it has none to show. */
export function contentLines(file: FileView): number {
  let known = lineCounts.get(file);
  const { info } = file;
  if (known === undefined && (file.state === 'read' || file.state === 'cut') && (info.type === 'text' || info.type === undefined) && info.shown) {
    // A text file: its lines are those the daemon says it showed (its content is not looked at
    // until the card is opened).
    known = info.shown[1] - info.shown[0] + 1;
  }
  if (known === undefined) {
    known = 0;
    for (const b of file.blocks) {
      if (b.text !== '') {
        known++;
        for (let at = b.text.indexOf('\n'); at >= 0; at = b.text.indexOf('\n', at + 1)) {
          known++;
        }
      }
    }
    lineCounts.set(file, known);
  }
  return known;
}

const lineCounts = new WeakMap<FileView, number>();

/** Whether a file has anything to show when opened: text or pictures. */
export function hasContent(file: FileView): boolean {
  return contentLines(file) > 0 || file.images.length > 0 || file.blocks.some((b) => b.image !== undefined);
}

/** The card of one file, without its content (the page asks for that when the card is opened). */
export function fileCardHtml(file: FileView): string {
  const { info } = file;
  const badge = { read: 'read', cut: 'cut', refused: 'not read', omitted: 'left out', unchanged: 'unchanged' }[file.state];
  const name = info.code === undefined || info.code === 'ACCESS_DENIED'
    ? `<button class="link name" data-action="open" data-file="${file.index}" title="Open ${escapeHtml(info.path)}${info.shown ? ` at line ${info.shown[0]}` : ''}">${escapeHtml(info.path)}</button>`
    : `<span class="name">${escapeHtml(info.path)}</span>`;
  const lines: string[] = [];
  if (file.state === 'cut') {
    lines.push(`<p class="where">Cut: ${escapeHtml(whereText(file))}.${file.more ? ` <span class="meta">${escapeHtml(file.more.notice)}</span>` : ''}</p>`);
    const buttons = [
      ...(file.more ? [moreButton(file, file.more, moreText(file.more))] : []),
      ...file.restOfLines.slice(0, 5).map((c) => moreButton(file, c, `Rest of line ${c.offset} (from character ${c.column})`)),
    ];
    if (buttons.length) {
      lines.push(`<p class="actions">${buttons.join(' ')}</p>`);
    }
  } else if (file.state === 'refused') {
    const why = refusalReason(info);
    const link = why.setting
      ? ` <button class="link" data-action="setting" data-setting="${escapeHtml(why.setting)}">Open the ${escapeHtml(why.setting)} setting</button>`
      : '';
    lines.push(`<p class="why">${escapeHtml(why.words)}${link} <span class="meta">(${escapeHtml(info.code ?? '')})</span></p>`);
  } else if (file.state === 'omitted') {
    lines.push(`<p class="why">${info.omitted === 'binary' ? 'A binary file: listed, not read.' : `Left out (${escapeHtml(String(info.omitted))}) to stay within the token budget.`}</p>`);
  } else if (file.state === 'unchanged') {
    lines.push('<p class="why">Unchanged since it was last read: not sent again.</p>');
  }
  if (hasContent(file)) {
    const n = contentLines(file);
    const pictures = file.images.length;
    const what = [n ? plural(n, 'line') : '', pictures ? plural(pictures, 'picture') : ''].filter(Boolean).join(', ');
    lines.push(`<button class="toggle" data-action="toggle" data-file="${file.index}" aria-expanded="false">Content (${what})</button>`);
  }
  return `<section class="file ${file.state}" id="file-${file.index}" data-file="${file.index}" aria-label="${escapeHtml(info.path)}: ${badge}">
<h3><span class="badge ${file.state}">${badge}</span> ${name} <span class="meta">${escapeHtml(metaText(file))}</span></h3>
${lines.join('\n')}
<div class="content" hidden></div>
</section>`;
}

/** The totals line: files read, cut and not read, size, estimated tokens, pictures. */
export function totalsText(result: ReadResult, views: FileView[] = fileViews(result)): string {
  const count = (s: string): number => views.filter((v) => v.state === s).length;
  const parts = [`${plural(result.files.length, 'file')}: ${formatCount(count('read') + count('cut'))} read`];
  if (count('cut')) {
    parts[0] += ` (${formatCount(count('cut'))} cut)`;
  }
  if (count('refused')) {
    parts[0] += `, ${formatCount(count('refused'))} not read`;
  }
  if (count('omitted')) {
    parts[0] += `, ${formatCount(count('omitted'))} left out`;
  }
  parts.push(formatBytes(result.bytes), `about ${plural(resultTokens(result), 'token')}`);
  if (result.images.length) {
    parts.push(plural(result.images.length, 'image'));
  }
  return parts.join(' · ');
}

/** A folder whose files the read capped (`readerd.folderMaxFiles`): what was shown of how many. */
export interface FolderCap {
  /** The folder or glob as the request wrote it. */
  path: string;
  /** The first file of it this read shows (1-based; past 1 after "Read the rest"). */
  first: number;
  /** The last file shown: files 1 to `shown` of the expansion were planned, up to this read. */
  shown: number;
  total: number;
}

/** The caps a plan's notices name: "500 of 1,988 files shown: 1,488 more left out past maxFiles (500)". */
export function folderCaps(notices: readonly ReadNotice[], firstOf: (path: string) => number = () => 1): FolderCap[] {
  const out: FolderCap[] = [];
  const num = (s: string): number => Number(s.replace(/,/g, ''));
  for (const n of notices) {
    const m = /^([\d,]+) of ([\d,]+) files shown: [\d,]+ more left out past maxFiles/.exec(n.message);
    if (m) {
      out.push({ path: n.path, first: firstOf(n.path), shown: num(m[1]!), total: num(m[2]!) });
    }
  }
  return out;
}

/** "many/: 500 of 1,988 files", "many/: files 501–1,988 of 1,988". */
export function capText(cap: FolderCap): string {
  const folder = cap.path.endsWith('/') || /[*?[]/.test(cap.path) ? cap.path : `${cap.path}/`;
  return cap.first > 1
    ? `${folder}: files ${formatCount(cap.first)}–${formatCount(cap.shown)} of ${formatCount(cap.total)}`
    : `${folder}: ${formatCount(cap.shown)} of ${formatCount(cap.total)} files`;
}

/** What the page shows of a result: the header, one card per file (content asked for when opened). */
export interface ResultsModel {
  seq: number;
  title: string;
  totals: string;
  /** The caps and the daemon's notices, as HTML. */
  headerHtml: string;
  /** The cards of the first files (the rest come in later messages, `cardsFrom`). */
  cards: string[];
  /** Files of the result. */
  count: number;
  /** Each file's path (the filter matches them). */
  paths: string[];
  /** Pictures of each file's content. */
  pictures: number[];
  /** Lines of each file's content (for the height of an opened card before it is measured). */
  lines: number[];
  /** Files open from the start. */
  open: number[];
  /** The title of the result "Back" returns to, if any. */
  back?: string;
}

/** Files a result has at most for its short files to start open. */
const OPEN_FILES = 20;

/**
 * The model of `result` for the page. Every string in it is escaped here; the page inserts the
 * cards of the files in view only.
 */
export function resultsModel(result: ReadResult, title: string, views: FileView[], options: { seq: number; caps?: FolderCap[]; notices?: ReadNotice[]; back?: string; cap?: number; first?: number }): ResultsModel {
  const caps = (options.caps ?? []).map((cap, k) => {
    const rest = cap.total - cap.shown;
    if (rest <= 0) {
      // The rest of a folder, read to its end: which files of how many, nothing more to read.
      return `<p class="cap" role="status"><span class="badge">rest</span> ${escapeHtml(capText(cap))}</p>`;
    }
    return `<p class="cap" role="status"><span class="badge cut">capped</span> ${escapeHtml(capText(cap))} ` +
      `<span class="meta">(readerd.folderMaxFiles: ${formatCount(options.cap ?? cap.shown)})</span> ` +
      `<button class="action" data-action="rest" data-cap="${k}">Read the rest (${plural(rest, 'file')})</button> ` +
      `<button class="link" data-action="setting" data-setting="readerd.folderMaxFiles">Change the cap</button></p>`;
  });
  const capped = new Set((options.caps ?? []).map((c) => c.path));
  const notices = [...(result.notices ?? []), ...(options.notices ?? [])]
    .filter((n) => !(capped.has(n.path) && /past maxFiles/.test(n.message)))
    .map((n) => `<p class="note">${escapeHtml(n.path)}: ${escapeHtml(n.message)}</p>`);
  const lines = views.map(contentLines);
  const open = views.length === 1
    ? [0]
    : views.length <= OPEN_FILES ? views.filter((v) => hasContent(v) && lines[v.index]! <= OPEN_LINES).map((v) => v.index) : [];
  return {
    seq: options.seq,
    title,
    totals: totalsText(result, views),
    headerHtml: [...caps, ...notices].join('\n'),
    cards: views.slice(0, options.first ?? views.length).map(fileCardHtml),
    count: views.length,
    paths: views.map((v) => v.info.path),
    pictures: views.map((v) => v.images.length),
    lines,
    open,
    back: options.back,
  };
}

/**
 * The page of the view: its style and script, no result. The result comes as a message
 * (ResultsModel); the page draws the cards in view only and asks for a file's content when it is
 * opened, so the work of a paint does not grow with the size of the answer. `nonce` allows its one
 * script and style; nothing is loaded from anywhere (pictures are data: URIs).
 */
export function resultsShell(nonce: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>readerd results</title>
<style nonce="${nonce}">
  body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 0 16px 24px; }
  header { position: sticky; top: 0; background: var(--vscode-editor-background); border-bottom: 1px solid var(--vscode-panel-border); padding: 8px 0; z-index: 1; }
  header h2 { margin: 4px 0; font-size: 1.15em; }
  .bar { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin-top: 6px; }
  button { font-family: inherit; font-size: inherit; cursor: pointer; }
  button.action { background: var(--vscode-button-background); color: var(--vscode-button-foreground); border: 1px solid var(--vscode-button-border, transparent); padding: 3px 10px; }
  button.action:hover { background: var(--vscode-button-hoverBackground); }
  button.secondary { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); }
  button.secondary:hover { background: var(--vscode-button-secondaryHoverBackground); }
  button.link { background: none; border: none; padding: 0; color: var(--vscode-textLink-foreground); text-decoration: underline; }
  button.link:hover { color: var(--vscode-textLink-activeForeground); }
  button:focus-visible, summary:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 2px; }
  .file { border-bottom: 1px solid var(--vscode-panel-border); padding: 8px 0; }
  .file h3 { font-size: 1em; margin: 4px 0; font-weight: normal; display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; }
  .name { font-family: var(--vscode-editor-font-family); font-weight: bold; word-break: break-all; }
  .badge { border: 1px solid var(--vscode-contrastBorder, transparent); border-radius: 3px; padding: 0 6px; font-size: 0.85em; background: var(--vscode-badge-background); color: var(--vscode-badge-foreground); }
  .badge.cut { background: var(--vscode-inputValidation-warningBackground); color: var(--vscode-foreground); border-color: var(--vscode-inputValidation-warningBorder); }
  .badge.refused { background: var(--vscode-inputValidation-errorBackground); color: var(--vscode-foreground); border-color: var(--vscode-inputValidation-errorBorder); }
  .meta { color: var(--vscode-descriptionForeground); }
  .why { color: var(--vscode-errorForeground); }
  .where, .why, .actions, .note { margin: 4px 0; }
  .code, pre.plain { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); background: var(--vscode-textCodeBlock-background); border: 1px solid var(--vscode-panel-border); padding: 4px 0; overflow-x: auto; margin: 4px 0; }
  pre.plain { padding: 4px 8px; white-space: pre-wrap; word-break: break-word; }
  .row { display: flex; white-space: pre; }
  .ln { flex: none; min-width: 5ch; padding: 0 12px 0 8px; text-align: right; color: var(--vscode-editorLineNumber-foreground); user-select: none; }
  .tx { padding-right: 8px; }
  .row.notice .tx { color: var(--vscode-descriptionForeground); font-style: italic; }
  h4.part { margin: 8px 0 2px; font-size: 0.9em; color: var(--vscode-descriptionForeground); text-transform: capitalize; }
  summary { cursor: pointer; color: var(--vscode-descriptionForeground); }
  .picture { margin: 6px 0; }
  .picture img { max-width: 100%; height: auto; border: 1px solid var(--vscode-panel-border); background: var(--vscode-editorWidget-background); }
  figcaption { font-size: 0.92em; }

  .cap { margin: 6px 0; display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; }
  #list { position: relative; }
  #list > section.file { position: absolute; left: 0; right: 0; box-sizing: border-box; }
  button.toggle { background: none; border: none; padding: 2px 0; color: var(--vscode-descriptionForeground); }
  button.toggle::before { content: '\\25B8  '; }
  button.toggle[aria-expanded=true]::before { content: '\\25BE  '; }
  #filter { background: var(--vscode-input-background); color: var(--vscode-input-foreground); border: 1px solid var(--vscode-input-border, transparent); padding: 3px 6px; font-family: inherit; font-size: inherit; }
  #filter:focus { outline: 1px solid var(--vscode-focusBorder); }
  .empty { color: var(--vscode-descriptionForeground); }
</style>
</head>
<body>
<header>
<h2 id="title">Reading...</h2>
<div class="totals" id="totals"></div>
<div class="bar">
<button class="action secondary" data-action="back" id="back" hidden>Back</button>
<button class="action" data-action="copy">Copy as Prompt Context</button>
<button class="action secondary" data-action="chat">Add to Chat</button>
<button class="action secondary" data-action="raw">Show Raw XML</button>
<input id="filter" type="search" placeholder="Filter files" aria-label="Filter files by path">
</div>
<div id="caps"></div>
</header>
<main><div id="list" role="list"></div></main>
<script nonce="${nonce}">${PAGE_SCRIPT}</script>
</body>
</html>`;
}
