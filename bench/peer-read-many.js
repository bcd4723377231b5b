// What the JavaScript file-reading tools do, written plainly for the benchmark: read every file
// in parallel, number its lines (cat -n), wrap each in an XML element, JSON-encode the answer.
'use strict';
const fs = require('fs/promises');

function escapeXml(s) {
  return s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]);
}

async function readOne(path) {
  const [buf, st] = await Promise.all([fs.readFile(path), fs.stat(path)]);
  const text = buf.toString('utf8');
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const shown = lines.slice(0, 2000).map((l, i) => String(i + 1).padStart(6) + '\t' + l.replace(/\r$/, ''));
  return { path, bytes: st.size, lines: lines.length, content: shown.join('\n') };
}

(async () => {
  const paths = process.argv.slice(2);
  const files = await Promise.all(paths.map(readOne));
  const xml = '<ReadResults>\n' + files.map((f) =>
    `<Content path='${escapeXml(f.path)}' bytes='${f.bytes}' lines='${f.lines}'>\n${escapeXml(f.content)}\n</Content>`).join('\n') + '\n</ReadResults>';
  process.stdout.write(JSON.stringify({ xml, files: files.map(({ content, ...m }) => m) }));
})();
