// Finding the readerd binary: setting, repository build, PATH.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { findReaderd } from '../../src/daemon/findBinary';

function tree(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'readerd-find-'));
  fs.mkdirSync(path.join(root, 'repo', 'build', 'daemon'), { recursive: true });
  fs.mkdirSync(path.join(root, 'repo', 'vscode-client', 'src'), { recursive: true });
  fs.mkdirSync(path.join(root, 'bin'));
  return root;
}

function executable(file: string): void {
  fs.writeFileSync(file, '#!/bin/sh\n');
  fs.chmodSync(file, 0o755);
}

test('findBinary_setting_wins_and_resolves_relative_paths', () => {
  const root = tree();
  executable(path.join(root, 'repo', 'build', 'daemon', 'readerd'));
  const found = findReaderd({ configured: 'tools/readerd', baseDir: root, searchFrom: [path.join(root, 'repo')] });
  assert.deepEqual(found, { path: path.join(root, 'tools', 'readerd'), how: 'setting' });
  fs.rmSync(root, { recursive: true });
});

test('findBinary_repository_build_above_a_folder', () => {
  const root = tree();
  const binary = path.join(root, 'repo', 'build', 'daemon', 'readerd');
  executable(binary);
  executable(path.join(root, 'bin', 'readerd'));
  const found = findReaderd({ searchFrom: [path.join(root, 'repo', 'vscode-client', 'src')], pathEnv: path.join(root, 'bin') });
  assert.deepEqual(found, { path: binary, how: 'repository' });
  fs.rmSync(root, { recursive: true });
});

test('findBinary_path_then_nothing', () => {
  const root = tree();
  // Not executable: skipped.
  fs.writeFileSync(path.join(root, 'repo', 'build', 'daemon', 'readerd'), '');
  executable(path.join(root, 'bin', 'readerd'));
  const pathEnv = ['', path.join(root, 'nowhere'), path.join(root, 'bin')].join(path.delimiter);
  assert.deepEqual(findReaderd({ searchFrom: [path.join(root, 'repo')], pathEnv }), { path: path.join(root, 'bin', 'readerd'), how: 'PATH' });
  assert.equal(findReaderd({ searchFrom: [path.join(root, 'repo')], pathEnv: path.join(root, 'nowhere'), installed: [] }), undefined);
  fs.rmSync(root, { recursive: true });
});

test('findBinary_installed_package_path_last', () => {
  const root = tree();
  const installed = path.join(root, 'usr-bin-readerd');
  executable(installed);
  const nowhere = path.join(root, 'nowhere');
  // Nothing in the setting, the repository or PATH: the package's path.
  assert.deepEqual(findReaderd({ searchFrom: [nowhere], pathEnv: nowhere, installed: [path.join(root, 'missing'), installed] }), { path: installed, how: 'package' });
  // PATH comes first.
  executable(path.join(root, 'bin', 'readerd'));
  assert.equal(findReaderd({ searchFrom: [nowhere], pathEnv: path.join(root, 'bin'), installed: [installed] })?.how, 'PATH');
  fs.rmSync(root, { recursive: true });
});
