// What is left out, whoever lists files: .gitignore rules, readerd.exclude patterns, files.exclude,
// links the daemon refuses; matched on real files in a scratch workspace of two folders.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Exclusion, ExclusionSources, globToRegExp, IgnoreRules } from '../../src/exclusion';
import { WorkspaceRoots } from '../../src/roots';
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

describe('exclusion', () => {
  let top: string;
  let app: string;
  let lib: string;
  let outside: string;

  before(() => {
    top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'readerd-exclusion-')));
    app = path.join(top, 'app');
    lib = path.join(top, 'lib');
    outside = path.join(top, 'outside');
    for (const dir of [path.join(app, 'build'), path.join(app, 'docs'), path.join(lib, 'gen'), outside]) {
      fs.mkdirSync(dir, { recursive: true });
    }
    const files: Record<string, string> = {
      'app/.gitignore': 'build/\n*.log\n!.env\n',
      'app/.env': 'SECRET=1\n',
      'app/main.c': 'int main(void) { return 0; }\n',
      'app/build/out.o': 'o\n',
      'app/docs/a.tmp': 'tmp\n',
      'app/docs/today.log': 'log\n',
      'lib/.gitignore': 'gen/\n',
      'lib/gen/x.c': 'x\n',
      'lib/today.log': 'kept: app\'s .gitignore is not lib\'s\n',
      'outside/secret.txt': 'out of the fence\n',
    };
    for (const [rel, text] of Object.entries(files)) {
      fs.writeFileSync(path.join(top, rel), text);
    }
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(app, 'out-link.txt'));
    fs.symlinkSync(path.join(app, 'gone.txt'), path.join(app, 'dangling.txt'));
    fs.symlinkSync(path.join(app, '.env'), path.join(app, 'env-link.txt'));
    fs.symlinkSync(path.join(app, 'main.c'), path.join(app, 'main-link.c'));
  });

  after(() => fs.rmSync(top, { recursive: true, force: true }));

  function exclusion(over: Partial<ExclusionSources> = {}): Exclusion {
    const roots = new WorkspaceRoots([{ name: 'app', path: app }, { name: 'lib', path: lib }]);
    const patterns = ['.env', 'secrets/*.txt'];
    return new Exclusion({
      roots: () => roots,
      patterns: () => patterns,
      confined: () => true,
      filesExclude: (folder) => (folder === app ? { '**/*.tmp': true, 'build/': false } : undefined),
      readText: async (file) => fs.promises.readFile(file, 'utf8').catch(() => undefined),
      ...over,
    });
  }

  test('exclusion_hidden_follows_files_exclude_of_the_path_s_folder', () => {
    const e = exclusion();
    assert.ok(e.hidden('app/docs/a.tmp'), 'a pattern that is on hides');
    assert.ok(!e.hidden('app/build/out.o'), 'a pattern set to false is off');
    assert.ok(!e.hidden('app/main.c'));
    assert.ok(!e.hidden('lib/gen/x.c'), 'lib has no files.exclude');
    assert.ok(!e.hidden(path.join(outside, 'secret.txt')), 'a path under no folder is not hidden');
  });

  test('exclusion_excluded_follows_readerd_exclude_and_its_changes', () => {
    let patterns = ['.env'];
    const e = exclusion({ patterns: () => patterns });
    assert.ok(e.excluded(path.join(app, '.env')));
    assert.ok(!e.excluded(path.join(app, 'main.c')));
    assert.ok(!e.excluded(path.join(outside, '.env')), 'a path under no folder is not refused here');
    patterns = ['*.c'];
    assert.ok(e.excluded(path.join(lib, 'gen', 'x.c')), 'a new setting is compiled again');
    assert.ok(!e.excluded(path.join(app, '.env')));
  });

  test('exclusion_left_out_by_each_folder_s_gitignore', async () => {
    const gitignore = await exclusion().leftOutBy({ patterns: false });
    assert.ok(gitignore(path.join(app, 'build', 'out.o')));
    assert.ok(gitignore(path.join(app, 'docs', 'today.log')));
    assert.ok(!gitignore(path.join(lib, 'today.log')), 'each folder has its own .gitignore');
    assert.ok(gitignore(path.join(lib, 'gen', 'x.c')));
    assert.ok(!gitignore(path.join(app, 'main.c')));
    assert.ok(!gitignore(path.join(app, '.env')), 'without the patterns, .env is not left out');
    assert.ok(!gitignore(path.join(outside, 'secret.txt')));
    // With readerd.exclude first, the .gitignore's last matching rule still decides (as for `@` completion).
    const both = await exclusion({ patterns: () => ['*.c', '.env'] }).leftOutBy({ patterns: true });
    assert.ok(both(path.join(app, 'main.c')));
    assert.ok(both(path.join(lib, 'gen', 'x.c')));
    assert.ok(!both(path.join(app, '.env')), "app's `!.env` takes it back in");
  });

  test('exclusion_quick_pick_leaves_out_ignored_files_and_refused_links', async () => {
    const names = ['main.c', 'build/out.o', 'out-link.txt', 'dangling.txt', 'env-link.txt', 'main-link.c', '.env'];
    const out = await exclusion().leftOutOfPick(names.map((n) => path.join(app, n)));
    const rel = (set: Set<string>): string[] => [...set].map((p) => path.relative(app, p)).sort();
    assert.deepEqual(rel(out.ignored), ['build/out.o']);
    assert.deepEqual(rel(out.links), ['dangling.txt', 'env-link.txt', 'out-link.txt'], 'out of the fence, dangling, to an excluded file');
    const unconfined = await exclusion({ confined: () => false }).leftOutOfPick([path.join(app, 'out-link.txt')]);
    assert.equal(unconfined.links.size, 0, 'without the fence, a link out of the folder is listed');
  });
});
