// What `@` completion leaves out: .gitignore rules and readerd.exclude patterns.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { globToRegExp, IgnoreRules } from '../../src/ignore';
import { settingDefault } from './helpers';

describe('ignore', () => {
  test('ignore_glob_to_regexp', () => {
    assert.ok(globToRegExp('*.log').test('a.log'));
    assert.ok(!globToRegExp('*.log').test('dir/a.log'));
    assert.ok(globToRegExp('**/*.log').test('dir/sub/a.log'));
    assert.ok(globToRegExp('**/*.log').test('a.log'));
    assert.ok(globToRegExp('build/**').test('build/x/y.o'));
    assert.ok(globToRegExp('a?c.{md,txt}').test('abc.txt'));
    assert.ok(!globToRegExp('a?c.{md,txt}').test('abc.c'));
    assert.ok(globToRegExp('[ab].c').test('b.c'));
    assert.ok(!globToRegExp('[!ab].c').test('a.c'));
    assert.ok(globToRegExp('x.c++').test('x.c++'), 'regexp characters are literal');
  });

  test('ignore_gitignore_names_paths_folders_and_negation', () => {
    const rules = new IgnoreRules().addGitignore([
      '# comment',
      'node_modules/',
      '*.log',
      '!keep.log',
      '/build',
      'docs/generated/*.html',
      '',
    ].join('\n'));
    assert.ok(rules.ignores('node_modules/x/index.js'));
    assert.ok(rules.ignores('pkg/node_modules/y.js'), 'a name matches at any depth');
    assert.ok(!rules.ignores('node_modules'), 'a dir-only rule does not match a file');
    assert.ok(rules.ignores('node_modules', true));
    assert.ok(rules.ignores('logs/today.log'));
    assert.ok(!rules.ignores('logs/keep.log'), '! takes a file back');
    assert.ok(rules.ignores('build/out.o'));
    assert.ok(!rules.ignores('src/build/out.o'), 'a leading slash anchors to the folder');
    assert.ok(rules.ignores('docs/generated/a.html'));
    assert.ok(!rules.ignores('docs/a.html'));
    assert.ok(!rules.ignores('src/main.c'));
  });

  test('ignore_fence_excludes_as_the_daemon_matches_them', () => {
    const rules = new IgnoreRules().addExcludes([...settingDefault<string[]>('exclude'), 'secrets/*.txt']);
    assert.ok(rules.ignores('.env'));
    assert.ok(rules.ignores('app/.env.local'), 'a name pattern matches in any folder');
    assert.ok(rules.ignores('keys/server.pem'));
    assert.ok(rules.ignores('secrets/a.txt'));
    assert.ok(!rules.ignores('app/secrets/a.txt'), 'a pattern with / is a path under the folder');
    assert.ok(!rules.ignores('src/env.c'));
  });
});
