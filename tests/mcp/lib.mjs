// Helpers of the MCP tests: reading a <Content> element, the sizes of PNG and JPEG pictures, the
// Go files the benchmarks read, and a raw JSON-RPC session over a child's stdio.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ENTITIES = { lt: '<', gt: '>', amp: '&', apos: "'", quot: '"' };

function decodeEntities(s) {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|\w+);/g, (m, e) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return ENTITIES[e] ?? m;
  });
}

// One <Content> element as readerd writes it: { attrs, body, lines }, `body` the element's text
// with CDATA sections unwrapped and entities decoded, `lines` that text's lines.
export function contentOf(xml) {
  const open = /^<Content\b([^>]*?)(\/?)>/.exec(xml);
  if (!open) throw new Error(`not a <Content> element: ${xml.slice(0, 200)}`);
  const attrs = {};
  for (const [, k, v] of open[1].matchAll(/(\w+)='([^']*)'/g)) attrs[k] = decodeEntities(v);
  if (open[2] === '/') return { attrs, body: '', lines: [] };
  const end = xml.lastIndexOf('</Content>');
  if (end < 0) throw new Error(`<Content> without its end: ${xml.slice(0, 200)}`);
  const inner = xml.slice(open[0].length, end);
  let body = '';
  let at = 0;
  for (const m of inner.matchAll(/<!\[CDATA\[([\s\S]*?)\]\]>/g)) {
    body += decodeEntities(inner.slice(at, m.index)) + m[1];
    at = m.index + m[0].length;
  }
  body += decodeEntities(inner.slice(at));
  return { attrs, body, lines: linesOf(body.replace(/^\n/, '')) };
}

// The lines of a text as readerd counts them: a last line without '\n' counts, '' has none.
export function linesOf(text) {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

// The first n .go files under root in the order of bench/benchlib.py pick_files (os.walk with
// sorted names: a folder's files, then its subfolders).
export function goFiles(root, n) {
  const out = [];
  const walk = (dir) => {
    const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (!e.isDirectory() && e.name.endsWith('.go')) {
        out.push(path.join(dir, e.name));
        if (out.length === n) return true;
      }
    }
    for (const e of entries) if (e.isDirectory() && walk(path.join(dir, e.name))) return true;
    return false;
  };
  walk(root);
  if (out.length < n) throw new Error(`only ${out.length} .go files under ${root} (install golang-1.19-src)`);
  return out;
}

// { mimeType, width, height } of a PNG or JPEG picture, from its header; throws on anything else.
export function imageSize(buf) {
  if (buf.length >= 24 && buf.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    if (buf.toString('latin1', 12, 16) !== 'IHDR') throw new Error('PNG without IHDR first');
    return { mimeType: 'image/png', width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
  }
  if (buf.length >= 4 && buf[0] === 0xff && buf[1] === 0xd8) {
    let i = 2;
    while (i + 9 < buf.length) {
      if (buf[i] !== 0xff) throw new Error(`JPEG marker expected at ${i}`);
      const m = buf[i + 1];
      if (m === 0xff) { i++; continue; }
      const len = buf.readUInt16BE(i + 2);
      if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) {
        return { mimeType: 'image/jpeg', width: buf.readUInt16BE(i + 7), height: buf.readUInt16BE(i + 5) };
      }
      i += 2 + len;
    }
    throw new Error('JPEG without a frame header');
  }
  throw new Error(`neither PNG nor JPEG: ${buf.subarray(0, 8).toString('hex')}`);
}

// The page count pdfinfo (poppler-utils) gives, or null without pdfinfo.
export function pdfPageCount(file) {
  const p = spawnSync('pdfinfo', [file], { encoding: 'utf8' });
  if (p.status !== 0) return null;
  const m = /^Pages:\s+(\d+)/m.exec(p.stdout);
  return m ? Number(m[1]) : null;
}

// The first dir/name that exists, or null.
export function realFile(dirs, name) {
  for (const d of dirs) if (fs.existsSync(path.join(d, name))) return path.join(d, name);
  return null;
}

// A raw JSON-RPC session over the stdio of `cmd args`: call() sends a request and resolves with
// the response of its id; notify() sends a notification; close() ends stdin and resolves with the
// exit status, the stdout lines that were not JSON-RPC messages and what came on stderr.
export function sessionOf(cmd, args, cwd) {
  const child = spawn(cmd, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting = new Map();
  const junk = [];
  const incoming = [];
  let buf = '';
  let id = 0;
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => { stderr += d; });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let msg;
      try { msg = JSON.parse(line); } catch { junk.push(line); continue; }
      if (msg.jsonrpc !== '2.0') { junk.push(line); continue; }
      if ('id' in msg && !('method' in msg) && waiting.has(msg.id)) {
        waiting.get(msg.id)(msg);
        waiting.delete(msg.id);
      } else {
        incoming.push(msg);
      }
    }
  });
  const exited = new Promise((res) => child.on('close', (code) => res(code)));
  const send = (msg) => child.stdin.write(JSON.stringify(msg) + '\n');
  return {
    incoming,
    call(method, params) {
      const my = ++id;
      const p = new Promise((res) => waiting.set(my, res));
      send(params === undefined ? { jsonrpc: '2.0', id: my, method } : { jsonrpc: '2.0', id: my, method, params });
      return p;
    },
    // A request line written by hand, for what JSON.stringify cannot write (a repeated member,
    // bytes that are not UTF-8): line(id) gives it (a string or a Buffer); resolves with the
    // response of that id.
    callRaw(line) {
      const my = ++id;
      const p = new Promise((res) => waiting.set(my, res));
      child.stdin.write(Buffer.concat([Buffer.from(line(my)), Buffer.from('\n')]));
      return p;
    },
    notify(method, params) {
      send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
    },
    async close() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
      const code = await exited;
      clearTimeout(timer);
      if (buf !== '') junk.push(buf);
      return { code, stdoutJunk: junk, stderr };
    },
  };
}
