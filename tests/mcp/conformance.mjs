// The official MCP conformance framework's server scenarios that apply to a file server, run
// against `readerd mcp` behind supergateway (stdio to Streamable HTTP, the transport the
// framework speaks). Each scenario is one test; the gateway is started once and stopped at the
// end. Run by tests/mcp/conformance.sh.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const READERD = process.env.READERD;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const CONFORMANCE = path.join(HERE, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const GATEWAY = path.join(HERE, 'node_modules', 'supergateway', 'dist', 'index.js');
// What a server that reads files can be asked; the other scenarios call the tools, prompts and
// resources of the framework's own test server (test://static-text, add_numbers, ...).
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'logging-set-level', 'completion-complete',
  'resources-list'];

let gateway;
let url;
let tmp;

// A port nothing listens on now.
function freePort() {
  return new Promise((res, rej) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    }).on('error', rej);
  });
}

before(async () => {
  assert.ok(READERD, 'READERD names the readerd binary');
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'readerd-conformance-'));
  fs.writeFileSync(path.join(tmp, 'hello.txt'), 'hello\n');
  const port = await freePort();
  gateway = spawn(process.execPath, [GATEWAY, '--stdio', `${READERD} mcp --root ${tmp}`,
    '--outputTransport', 'streamableHttp', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  // Ready once it says so: the line comes after the port is bound.
  await new Promise((res, rej) => {
    const seen = (d) => { out += d; if (/Listening on port/.test(out)) res(); };
    gateway.stdout.on('data', seen);
    gateway.stderr.on('data', seen);
    gateway.once('exit', (code) => rej(new Error(`supergateway exited (${code}): ${out}`)));
  });
  url = `http://localhost:${port}/mcp`;
});

after(async () => {
  if (gateway && gateway.exitCode === null) {
    const gone = new Promise((res) => gateway.once('exit', res));
    gateway.kill('SIGTERM');
    await gone;
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

for (const scenario of SCENARIOS) {
  test(`conformance_${scenario}`, () => {
    // The framework imports fs.globSync (node 22) at load time; node20-fs.mjs supplies a stub on
    // node 20, where only the command that calls it (tier-check) would fail.
    const p = spawnSync(process.execPath, ['--import', path.join(HERE, 'node20-fs.mjs'), CONFORMANCE, 'server',
      '--url', url, '--scenario', scenario], { encoding: 'utf8', timeout: 60000 });
    const out = `${p.stdout}\n${p.stderr}`;
    assert.equal(p.status, 0, out);
    const m = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(out);
    assert.ok(m, out);
    assert.equal(m[1], m[2], out);
    assert.equal(m[3], '0', out);
  });
}
