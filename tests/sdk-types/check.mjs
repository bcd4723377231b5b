// Type-checks real outputs of `readerd read --format anthropic` and `--format openai` against
// the official SDK types, so that a shape drifting from what those APIs take fails a test:
//   anthropic: the `content` of @anthropic-ai/sdk's ToolResultBlockParam
//   openai:    openai's ChatCompletionContentPart[] (the content of a user message)
// The read is one multi-file read: a text file, a PNG, a missing file, a PDF with a text page
// and a page rendered to a picture. The outputs are written into a .ts file as literals and
// checked with `tsc --noEmit`; two drifted shapes are checked too and must be refused, so that
// the check is known to bite.
//
// Usage: READERD=build/daemon/readerd node tests/sdk-types/check.mjs   (run by check.sh)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = process.env.READERD_SOURCE_ROOT || path.resolve(here, '..', '..');
const readerd = process.env.READERD;
const tsc = path.join(here, 'node_modules', 'typescript', 'bin', 'tsc');
const paths = ['a.txt', 'readerd.png', 'gone.txt', 'doc.pdf'];

function fail(msg) {
  console.error(`FAIL: ${msg}`);
  process.exit(1);
}

// A two-page PDF: page 1 has text, page 2 only a filled rectangle (rendered to a picture).
function makePdf() {
  const contents = ['BT /F1 18 Tf 20 100 Td (Hello from page one) Tj ET', '0.2 0.4 0.8 rg 40 40 220 120 re f'];
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 2 >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  for (const c of contents) {
    objs.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents ${objs.length + 2} 0 R ` +
              '/Resources << /Font << /F1 3 0 R >> >> >>');
    objs.push(`<< /Length ${c.length} >>\nstream\n${c}\nendstream`);
  }
  let out = '%PDF-1.4\n';
  const offsets = objs.map((body, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return out;
}

function readFormat(dir, format) {
  const r = spawnSync(readerd, ['read', '--format', format, ...paths], {
    cwd: dir, encoding: 'utf8', maxBuffer: 256 << 20,
  });
  if (r.status !== 1)
    fail(`readerd read --format ${format} exited ${r.status} (1 expected: gone.txt is missing): ${r.stderr}`);
  try {
    return JSON.parse(r.stdout);
  } catch (e) {
    fail(`readerd read --format ${format} printed no JSON: ${e.message}`);
  }
}

// The outputs must hold every kind of block, or the type check proves little.
function checkCoverage(anthropic, openai) {
  const kinds = (blocks) => blocks.map((b) => b.type).join(' ');
  // a.txt: text; readerd.png: text image; gone.txt: text; doc.pdf: text image (page 2)
  if (kinds(anthropic) !== 'text text image text text image')
    fail(`anthropic blocks are "${kinds(anthropic)}"`);
  if (kinds(openai) !== 'text text image_url text text image_url')
    fail(`openai parts are "${kinds(openai)}"`);
  if (!anthropic[3].text.includes("code='FILE_NOT_FOUND'") || !anthropic[4].text.includes("<Page number='2' image='1'"))
    fail('the failing file or the rendered page is missing from the anthropic blocks');
}

const header = `import type { ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type {
  ChatCompletionContentPart,
  ChatCompletionUserMessageParam,
} from 'openai/resources/chat/completions';
`;

function program(anthropic, openai) {
  return `${header}
export const anthropic: NonNullable<ToolResultBlockParam['content']> = ${JSON.stringify(anthropic, null, 1)};
export const toolResult: ToolResultBlockParam = { type: 'tool_result', tool_use_id: 'toolu_01', content: anthropic };
export const openai: ChatCompletionContentPart[] = ${JSON.stringify(openai, null, 1)};
export const user: ChatCompletionUserMessageParam = { role: 'user', content: openai };
`;
}

function typeCheck(dir, file, source) {
  fs.writeFileSync(path.join(dir, file), source);
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: 'es2022', lib: ['es2022', 'dom'],
      module: 'nodenext', moduleResolution: 'nodenext', skipLibCheck: true, types: [],
    },
    files: [file],
  }));
  return spawnSync(process.execPath, [tsc, '--noEmit', '-p', dir], { cwd: dir, encoding: 'utf8' });
}

function main() {
  if (!readerd) fail('env READERD (the readerd binary) is not set');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readerd-sdk-types-'));
  try {
    fs.writeFileSync(path.join(dir, 'a.txt'), 'alpha one\nalpha "two" ]]> & <tag>\n');
    fs.copyFileSync(path.join(root, 'samples', 'readerd.png'), path.join(dir, 'readerd.png'));
    fs.writeFileSync(path.join(dir, 'doc.pdf'), makePdf(), 'latin1');
    fs.symlinkSync(path.join(here, 'node_modules'), path.join(dir, 'node_modules'));

    const anthropic = readFormat(dir, 'anthropic');
    const openai = readFormat(dir, 'openai');
    checkCoverage(anthropic, openai);

    const good = typeCheck(dir, 'outputs.ts', program(anthropic, openai));
    if (good.status !== 0)
      fail(`readerd's outputs do not type-check against the SDK types:\n${good.stdout}${good.stderr}`);
    console.log('ok - anthropic blocks are ToolResultBlockParam content; openai parts are ChatCompletionContentPart[]');

    // Drifted shapes must be refused: a camelCase media type, an image_url given as a string.
    const drifted = [
      ['anthropic', structuredClone(anthropic), (b) => { b[2].source = { type: 'base64', mediaType: 'image/png', data: 'AAAA' }; }],
      ['openai', structuredClone(openai), (b) => { b[2].image_url = b[2].image_url.url; }],
    ];
    for (const [name, blocks, drift] of drifted) {
      drift(blocks);
      const bad = typeCheck(dir, 'drifted.ts', program(name === 'anthropic' ? blocks : anthropic,
                                                       name === 'openai' ? blocks : openai));
      if (bad.status === 0)
        fail(`a drifted ${name} shape type-checks: the check would not catch a real drift`);
      console.log(`ok - a drifted ${name} shape is refused`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main();
