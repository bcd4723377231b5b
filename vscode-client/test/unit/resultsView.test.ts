// The results view's page and the copy through the real readerd: files read, cut and refused in
// words, one set of line numbers, "Read more" at the continuation the daemon names (lines,
// columns, PDF pages), pictures inline, hostile names and content escaped; what a copy says it
// leaves out.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ReaderdClient } from '../../src/daemon/client';
import { PathSpec, ReadResult } from '../../src/protocol';
import { copyConfirmation, imageFileNames, promptCopy } from '../../src/results/promptCopy';
import { contentBodies, continuationItem, fileViews, numberedLines } from '../../src/results/resultModel';
import { formatBytes } from '../../src/format';
import { capText, fileCardHtml, fileContentHtml, folderCaps, resultsModel, resultsShell, totalsText } from '../../src/results/resultsHtml';

/** What the view can show of a result: the page, every card and every file's content opened. */
function resultsHtml(result: ReadResult, _title: string, nonce: string): string {
  const views = fileViews(result);
  return resultsShell(nonce) + views.map((v) => fileCardHtml(v) + fileContentHtml(v, result)).join('\n');
}
import { makeWorkspace, readerdBinary, removeWorkspace } from './helpers';

let root: string;
let client: ReaderdClient;

/** A PDF of `texts.length` pages, each with its text; an empty text gives a page with a blue box only (rendered). */
function pdf(texts: string[]): string {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '', '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'];
  const kids: string[] = [];
  for (const text of texts) {
    const stream = text ? `BT /F1 14 Tf 20 50 Td (${text}) Tj ET` : '0.2 0.4 0.8 rg 20 20 160 60 re f';
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Resources << /Font << /F1 3 0 R >> >> /Contents ${objects.length} 0 R >>`);
    kids.push(`${objects.length} 0 R`);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${texts.length} >>`;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return out;
}

const HOSTILE = '<img src=x onerror=alert(1)>&\'".txt';

before(async () => {
  root = makeWorkspace();
  fs.writeFileSync(path.join(root, 'big.txt'), Array.from({ length: 3000 }, (_, i) => `row ${i + 1}`).join('\n') + '\n');
  fs.writeFileSync(path.join(root, 'long.js'), 'y'.repeat(5000) + '\n');
  fs.writeFileSync(path.join(root, HOSTILE), '</Content><script>alert(2)</script>]]><b>bold</b>\n\tcontinue with offset=99\n');
  fs.writeFileSync(path.join(root, 'doc.pdf'), pdf(['first page', 'second page', 'third page', '']));
  fs.writeFileSync(path.join(root, '.env'), 'API_KEY=secret\n');
  client = await ReaderdClient.spawn(readerdBinary());
  await client.initialize({ rootPath: root, confineToRoot: true, exclude: ['.env'] });
});

after(async () => {
  await client.shutdown();
  removeWorkspace(root);
});

const read = (paths: PathSpec[], extra: { limit?: number } = {}): Promise<ReadResult> =>
  client.read({ paths, ...extra }) as Promise<ReadResult>;

test('resultsView_escapes_hostile_names_and_content', async () => {
  const result = await read([HOSTILE]);
  assert.equal(result.files[0]!.type, 'text');
  const [view] = fileViews(result);
  // The body's CDATA keeps `</Content>` and `]]>` as text; the content comes back whole.
  assert.deepEqual(view!.blocks.map((b) => b.text), ["     1\t</Content><script>alert(2)</script>]]><b>bold</b>\n     2\t\tcontinue with offset=99"]);
  assert.equal(view!.state, 'read');
  assert.equal(view!.more, undefined, 'a line of the file is not a notice of the daemon');
  const html = resultsHtml(result, HOSTILE, 'n0nce');
  assert.equal((html.match(/<script/g) ?? []).length, 1, 'the page\'s own script only');
  assert.doesNotMatch(resultsShell('n0nce'), /img src=x|alert/, 'the page holds no result: it comes as a message');
  assert.doesNotMatch(html, /<img src=x/);
  assert.doesNotMatch(html, /<b>bold/);
  assert.match(html, /&#60;img src=x onerror=alert\(1\)&#62;&#38;&#39;&#34;\.txt/);
  assert.match(html, /&#60;\/Content&#62;&#60;script&#62;alert\(2\)&#60;\/script&#62;\]\]&#62;/);
  assert.match(html, /content="default-src 'none'; img-src data:; style-src 'nonce-n0nce'; script-src 'nonce-n0nce';"/);
  assert.doesNotMatch(html, /https?:\/\//, 'nothing remote');
  assert.doesNotMatch(html.replace(/var\(--vscode-[\w-]+\)/g, ''), /#[0-9a-fA-F]{3,8}\b|rgba?\(/, 'colours from the theme only');
});

test('resultsView_one_set_of_line_numbers_and_read_more_at_the_offset', async () => {
  const result = await read(['big.txt', 'a.txt'], { limit: 5 });
  const [big, small] = fileViews(result);
  assert.equal(big!.state, 'cut');
  assert.equal(small!.state, 'read');
  const rows = numberedLines(big!.blocks[0]!.text, big!.info.shown?.[0]);
  assert.deepEqual(rows.slice(0, 5), [1, 2, 3, 4, 5].map((n) => ({ n, text: `row ${n}` })));
  assert.equal(rows[5]!.n, undefined);
  assert.match(rows[5]!.text, /^… 2995 more lines not shown; continue with offset=6$/);
  assert.deepEqual(big!.more, { offset: 6, column: undefined, notice: rows[5]!.text });
  const html = resultsHtml(result, '2 files', 'n');
  // One number per line, none of the XML's tab-separated numbering left in the text.
  assert.match(html, /<span class="ln">1<\/span><span class="tx">row 1<\/span>/);
  assert.doesNotMatch(html, /\d\trow/);
  assert.match(html, /Cut: lines 1–5 of 3,000 shown\./);
  assert.match(html, /data-action="more" data-file="0" data-offset="6">Read more: from line 6</);
  assert.equal(totalsText(result), `2 files: 2 read (1 cut) · ${formatBytes(result.bytes)} · about ${result.tokens} tokens`);
  // "Read more" reads on exactly there.
  const next = await read([continuationItem('big.txt', big!.more!)]);
  assert.deepEqual(next.files[0]!.shown, [6, 2005]);
  assert.equal(fileViews(next)[0]!.more!.offset, 2006);
});

test('resultsView_read_more_of_a_cut_line_at_its_column', async () => {
  const result = await read(['long.js']);
  const [view] = fileViews(result);
  assert.equal(view!.state, 'cut');
  assert.deepEqual(view!.restOfLines.map((c) => [c.offset, c.column, c.limit]), [[1, 2001, 1]]);
  assert.match(resultsHtml(result, 'x', 'n'), /data-offset="1" data-column="2001" data-limit="1">Rest of line 1 \(from character 2001\)</);
  const next = await read([continuationItem('long.js', view!.restOfLines[0]!)]);
  const [rest] = fileViews(next);
  assert.deepEqual(rest!.restOfLines.map((c) => [c.offset, c.column]), [[1, 4001]]);
});

test('resultsView_pdf_pages_cut_and_continued_with_pages_labelled', async () => {
  const result = await read([{ path: 'doc.pdf', pages: '1-2' }]);
  const [view] = fileViews(result);
  assert.equal(view!.state, 'cut');
  assert.deepEqual(view!.blocks.filter((b) => b.label).map((b) => b.label), ['page 1', 'page 2']);
  assert.match(view!.blocks[0]!.text, /first page/);
  assert.equal(view!.more?.pages, '3-');
  const html = resultsHtml(result, 'doc', 'n');
  assert.match(html, /Cut: pages 1–2 of 4 shown\./);
  assert.match(html, /data-pages="3-">Read more: pages 3-</);
  const next = await read([continuationItem('doc.pdf', view!.more!)]);
  const [rest] = fileViews(next);
  // Pages 1-2 are not in it, so it is still cut, with nothing after it to read.
  assert.equal(rest!.state, 'cut');
  assert.equal(rest!.more, undefined);
  assert.deepEqual(rest!.blocks.filter((b) => b.label).map((b) => [b.label, b.image]), [['page 3', undefined], ['page 4', 0]]);
  assert.equal(next.images[0]!.page, 4);
  assert.match(resultsHtml(next, 'doc', 'n'), /<img src="data:image\/png;base64,[A-Za-z0-9+/=]+" alt="doc\.pdf, page 4"/);
});

test('resultsView_refusals_in_words_with_the_setting', async () => {
  const result = await read(['.env', 'missing.c', '../outside.txt', 'logo.png']);
  const views = fileViews(result);
  assert.deepEqual(views.map((v) => v.state), ['refused', 'refused', 'refused', 'read']);
  const html = resultsHtml(result, 'x', 'n');
  assert.match(html, /Not read: its name matches a pattern of the readerd\.exclude setting[^<]*<button class="link" data-action="setting" data-setting="readerd\.exclude">/);
  assert.match(html, /Not found: there is no such file\./);
  assert.match(html, /Not read: it lies outside the workspace folder \(readerd\.confineToWorkspace\)/);
  assert.match(html, /<img src="data:image\/png;base64,[^"]+" alt="logo\.png" width="\d+" height="\d+">/);
  assert.match(totalsText(result), /^4 files: 1 read, 3 not read · /);
  assert.equal(contentBodies(result.xml).length, 4);
});

test('promptCopy_names_the_images_it_leaves_out', async () => {
  const withImage = await read(['a.txt', 'logo.png', { path: 'doc.pdf', pages: '4' }]);
  const copy = promptCopy(withImage);
  assert.deepEqual(copy.leftOut, ['logo.png', 'doc.pdf, page 4']);
  assert.equal(copy.tokens, withImage.tokens);
  assert.match(copy.text, /^<ReadResults [^>]*>\n<!-- 2 images not included \(copied as text\): logo\.png; doc\.pdf, page 4 -->\n<Content path='a\.txt'/);
  assert.equal(copy.text.replace(/<!--[^\n]*-->\n/, ''), withImage.xml);
  assert.match(copy.message, /2 images not copied: the clipboard holds text\./);
  const textOnly = await read(['a.txt']);
  assert.equal(promptCopy(textOnly).text, textOnly.xml);
  assert.deepEqual(promptCopy(textOnly).leftOut, []);
  const { message, detail } = copyConfirmation(withImage, copy.tokens, 10);
  assert.equal(message, `readerd: copy about ${copy.tokens.toLocaleString('en-US')} tokens of prompt context?`);
  assert.match(detail, /more than readerd\.confirmAboveTokens \(10 tokens\)/);
  assert.deepEqual(imageFileNames([...withImage.images, withImage.images[0]!]), ['logo.png', 'doc-page-4.png', 'logo-2.png']);
});

test('resultsView_model_of_a_big_read_holds_cards_not_content', async () => {
  const dir = path.join(root, 'many');
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < 600; i++) {
    fs.writeFileSync(path.join(dir, `f${String(i).padStart(3, '0')}.go`), `package many\n\n// file ${i}\nfunc F${i}() int { return ${i} }\n`);
  }
  const plan = await client.read({ paths: ['many'], expand: { maxFiles: 500 }, plan: true }) as ReadResult;
  const caps = folderCaps(plan.notices ?? []);
  assert.deepEqual(caps, [{ path: 'many', first: 1, shown: 500, total: 600 }]);
  assert.equal(capText(caps[0]!), 'many/: 500 of 600 files');
  assert.equal(capText({ ...caps[0]!, first: 501, shown: 600 }), 'many/: files 501–600 of 600');
  const result = await read(plan.files.map((f) => f.path));
  const views = fileViews(result);
  const model = resultsModel(result, '500 files', views, { seq: 1, caps, notices: plan.notices, cap: 500 });
  // The page gets one card per file and no content: the content of a file comes when it is opened.
  assert.equal(model.cards.length, 500);
  assert.deepEqual(model.open, [], 'no file starts open in a big read');
  assert.ok(model.cards.every((c) => !c.includes('class="code"')), 'no content in the cards');
  assert.ok(Math.max(...model.cards.map((c) => c.length)) < 2000, 'each card is small');
  assert.match(model.headerHtml, /many\/: 500 of 600 files <span class="meta">\(readerd\.folderMaxFiles: 500\)<\/span> <button class="action" data-action="rest" data-cap="0">Read the rest \(100 files\)<\/button>/);
  assert.doesNotMatch(model.headerHtml, /raise expand\.maxFiles/, 'the daemon\'s advice for its own clients is not shown');
  assert.match(fileContentHtml(views[0]!, result), /<span class="ln">4<\/span><span class="tx">func F0\(\) int \{ return 0 \}<\/span>/);
  // "Read the rest": the same expansion from the first file not shown.
  const rest = await client.read({ paths: ['many'], expand: { maxFiles: 600 }, plan: true, skip: 500 }) as ReadResult;
  assert.equal(rest.files.length, 100);
  assert.equal(rest.files[0]!.path, 'many/f500.go');
  // A small read opens its short files from the start.
  const small = await read(['a.txt', 'logo.png']);
  assert.deepEqual(resultsModel(small, '2 files', fileViews(small), { seq: 2 }).open, [0, 1]);
});
