// The settings: package.json declares each with its default, src/config.ts reads them all and is
// the only reader, and no default is repeated in the sources.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { PACKAGE_JSON, REPO } from './helpers';

const SRC = path.join(REPO, 'vscode-client', 'src');

function source(file: string): string {
  return fs.readFileSync(path.join(SRC, file), 'utf8');
}

/** The names in `const NAME: ReadonlyArray<keyof Settings> = [...]` of src/config.ts. */
function listed(name: string): string[] {
  const m = new RegExp(`const ${name}: ReadonlyArray<keyof Settings> = \\[([^\\]]*)\\]`).exec(source('config.ts'));
  assert.ok(m, `src/config.ts has ${name}`);
  return [...m[1]!.matchAll(/'([A-Za-z.]+)'/g)].map((k) => k[1]!);
}

test('settings_every_one_has_a_default_and_is_read', () => {
  const properties = PACKAGE_JSON.contributes.configuration.properties;
  const names = Object.keys(properties).map((k) => k.replace(/^readerd\./, ''));
  for (const [key, p] of Object.entries(properties)) {
    assert.ok('default' in p, `${key} has a default in package.json`);
  }
  assert.deepEqual(listed('KEYS').sort(), names.sort());
  // The Settings interface has one field per setting.
  const fields = /export interface Settings \{([^}]*)\}/.exec(source('config.ts'))![1]!;
  assert.deepEqual([...fields.matchAll(/^\s+'?([A-Za-z.]+)'?:/gm)].map((m) => m[1]).sort(), names.sort());
  for (const d of listed('DAEMON_SETTINGS')) {
    assert.ok(names.includes(d), `${d} is a setting`);
  }
});

test('settings_read_only_in_config_ts_without_defaults', () => {
  // Every part's folder too (daemon/, commands/, ...).
  for (const file of fs.readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
    const text = source(file);
    if (file !== 'config.ts') {
      assert.doesNotMatch(text, /getConfiguration\(/, `${file} reads settings itself`);
    }
    // config.get(key, default) would repeat a default, and so would the number itself in code.
    assert.doesNotMatch(text, /config\.get(<[^>]*>)?\([^)]*,/, `${file} passes a default to config.get`);
    const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    for (const [key, p] of Object.entries(PACKAGE_JSON.contributes.configuration.properties)) {
      if (typeof p.default === 'number') {
        const digits = String(p.default).split('').join('_?');
        assert.doesNotMatch(code, new RegExp(`\\b${digits}\\b`), `${file} repeats the default of ${key}`);
      }
    }
  }
});
