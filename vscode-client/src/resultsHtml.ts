// The page of the results view: totals, then each file read, cut (where, and "Read more") or
// refused (why), its pictures inline and its content with one set of line numbers. Only VS Code's
// theme variables colour it; every action is a button. Plain Node: no vscode import.

import { formatBytes } from './format';
import { ImageInfo, ReadResult } from './protocol';
import { Continuation, FileView, fileViews, imageLabel, numberedLines, refusalReason, resultTokens } from './resultModel';
import { formatCount } from './readPlan';

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
    const range = pages.length ? `${pages[0]}-${pages[pages.length - 1]}` : 'none';
    return `pages ${range} of ${info.pages ?? '?'} shown`;
  }
  if (info.type === 'image') {
    return info.tiles ? `tiles of ${info.tiles} shown in part (the image budget)` : 'the picture in part';
  }
  const unit = info.type === 'notebook' ? 'cells' : info.slides ? 'slides' : 'lines';
  const total = info.type === 'notebook' ? info.cells : info.slides ?? info.lines;
  return info.shown ? `${unit} ${formatCount(info.shown[0])}-${formatCount(info.shown[1])} of ${total === undefined ? '?' : formatCount(total)} shown` : `no ${unit} shown`;
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

function contentHtml(file: FileView, result: ReadResult): string {
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
  const lines = file.blocks.reduce((n, b) => n + b.text.split('\n').length, 0);
  const text = parts.length
    ? `<details${lines <= OPEN_LINES || result.files.length === 1 ? ' open' : ''}><summary>Content (${plural(lines, 'line')})</summary>${parts.join('\n')}</details>`
    : '';
  return pictures.join('\n') + text;
}

function fileHtml(file: FileView, result: ReadResult): string {
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
  return `<section class="file ${file.state}" id="file-${file.index}" aria-label="${escapeHtml(info.path)}: ${badge}">
<h3><span class="badge ${file.state}">${badge}</span> ${name} <span class="meta">${escapeHtml(metaText(file))}</span></h3>
${lines.join('\n')}
${contentHtml(file, result)}
</section>`;
}

/** The totals line: files read, cut and not read, size, estimated tokens, pictures. */
export function totalsText(result: ReadResult): string {
  const views = fileViews(result);
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

/**
 * The whole page for `result`. `nonce` allows its one script and style; nothing is loaded from
 * anywhere (the pictures are data: URIs of the result's images).
 */
export function resultsHtml(result: ReadResult, title: string, nonce: string): string {
  const views = fileViews(result);
  const notices = (result.notices ?? []).map((n) => `<p class="note">${escapeHtml(n.path)}: ${escapeHtml(n.message)}</p>`).join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(title)}</title>
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
</style>
</head>
<body>
<header>
<h2>${escapeHtml(title)}</h2>
<div class="totals">${escapeHtml(totalsText(result))}</div>
<div class="bar">
<button class="action" data-action="copy">Copy as Prompt Context</button>
<button class="action secondary" data-action="chat">Add to Chat</button>
<button class="action secondary" data-action="raw">Show Raw XML</button>
</div>
</header>
<main>
${notices}
${views.map((v) => fileHtml(v, result)).join('\n')}
</main>
<script nonce="${nonce}">
  const vscode = acquireVsCodeApi();
  const state = vscode.getState() || {};
  if (state.scrollY) { window.scrollTo(0, state.scrollY); }
  let pending;
  window.addEventListener('scroll', () => {
    clearTimeout(pending);
    pending = setTimeout(() => vscode.setState({ scrollY: window.scrollY }), 200);
  });
  vscode.setState({ scrollY: state.scrollY || 0 });
  document.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target.closest('button[data-action]') : null;
    if (!target) { return; }
    const d = target.dataset;
    vscode.postMessage({
      action: d.action,
      file: d.file === undefined ? undefined : Number(d.file),
      offset: d.offset === undefined ? undefined : Number(d.offset),
      column: d.column === undefined ? undefined : Number(d.column),
      limit: d.limit === undefined ? undefined : Number(d.limit),
      pages: d.pages,
      setting: d.setting,
    });
  });
</script>
</body>
</html>`;
}
