// Checking a picked readerd program, and where `readerd.path` is written and shown.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { checkReaderdBinary, whyNotExecutable } from '../../src/daemon/binaryCheck';
import { settingPlace, settingsCommand } from '../../src/daemon/settingScope';
import { readerdBinary } from './helpers';

test('binaryCheck_accepts_readerd_with_its_version', async () => {
  const check = await checkReaderdBinary(readerdBinary());
  assert.equal(check.ok, true);
  // The version the binary itself prints, not a constant of the test.
  const printed = require('node:child_process').execFileSync(readerdBinary(), ['--version'], { encoding: 'utf8' }) as string;
  assert.equal(check.ok && `readerd ${check.version}`, printed.trim().split('\n')[0]);
});

test('binaryCheck_refuses_other_programs_in_words', async () => {
  const t = await checkReaderdBinary('/bin/true');
  assert.equal(t.ok, false);
  assert.match(!t.ok ? t.reason : '', /^\/bin\/true is not readerd: "--version" printed "true \(GNU coreutils\)/);
  const echo = await checkReaderdBinary('/bin/echo');
  assert.equal(echo.ok, false);
  assert.match(!echo.ok ? echo.reason : '', /^\/bin\/echo is not readerd: "--version" printed "echo /);
});

test('binaryCheck_missing_folder_and_not_executable', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readerd-check-'));
  const plain = path.join(dir, 'readerd');
  fs.writeFileSync(plain, 'not a program\n');
  assert.equal(await whyNotExecutable(path.join(dir, 'gone')), 'there is no file there');
  assert.match((await whyNotExecutable(dir)) ?? '', /is a folder/);
  assert.match((await whyNotExecutable(plain)) ?? '', /is not executable/);
  assert.equal(await whyNotExecutable(readerdBinary()), undefined);
  assert.deepEqual(await checkReaderdBinary(plain), { ok: false, reason: `${plain}: it is not executable (chmod +x it, or pick the readerd program)` });
  const silent = path.join(dir, 'silent');
  fs.writeFileSync(silent, '#!/bin/sh\nexit 0\n');
  fs.chmodSync(silent, 0o755);
  assert.deepEqual(await checkReaderdBinary(silent), { ok: false, reason: `${silent} is not readerd: "--version" printed nothing (readerd prints "readerd X.Y.Z")` });
  fs.rmSync(dir, { recursive: true });
});

test('settingScope_remote_window_opens_the_remote_tab', () => {
  assert.equal(settingPlace({}), 'user');
  assert.equal(settingPlace({ workspaceValue: '/opt/readerd' }), 'workspace');
  assert.equal(settingPlace({ workspaceValue: 'a', workspaceFolderValue: 'b' }), 'workspaceFolder');
  assert.deepEqual(settingsCommand('readerd.path', 'user', 'ssh-remote'), { command: 'workbench.action.openRemoteSettings', args: [{ query: 'readerd.path' }] });
  assert.deepEqual(settingsCommand('readerd.path', 'user', undefined), { command: 'workbench.action.openSettings', args: ['readerd.path'] });
  assert.equal(settingsCommand('readerd.path', 'workspace', 'ssh-remote').command, 'workbench.action.openWorkspaceSettings');
});
