// Which workspace folder a path belongs to, and what is sent for it.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { WorkspaceRoots } from '../../src/roots';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'readerd-roots-'));
const app = path.join(base, 'app');
const lib = path.join(base, 'lib');
const nested = path.join(app, 'vendor');
fs.mkdirSync(path.join(nested, 'src'), { recursive: true });
fs.mkdirSync(path.join(lib, 'src'), { recursive: true });
fs.writeFileSync(path.join(app, 'a.txt'), 'app\n');
fs.writeFileSync(path.join(lib, 'only-in-lib.txt'), 'lib\n');
fs.writeFileSync(path.join(lib, 'a.txt'), 'lib\n');

after(() => fs.rmSync(base, { recursive: true, force: true }));

const multi = new WorkspaceRoots([{ name: 'app', path: app }, { name: 'Library', path: lib }]);

test('roots_single_folder_relative_and_absolute', () => {
  const single = new WorkspaceRoots([{ name: 'app', path: app }]);
  assert.deepEqual(single.locate('src/x.c'), { root: app, sent: 'src/x.c', base: app, absolute: path.join(app, 'src/x.c') });
  // In a single-folder workspace the folder's name is an ordinary path segment.
  assert.equal(single.locate('app/a.txt').absolute, path.join(app, 'app/a.txt'));
  // Outside the folder: fenced to it all the same (confinement then refuses it).
  assert.deepEqual(single.locate('/etc/hostname'), { root: app, sent: '/etc/hostname', base: app, absolute: '/etc/hostname' });
  assert.equal(single.display(path.join(app, 'src', 'x.c')), 'src/x.c');
  assert.equal(single.display('/etc/hostname'), '/etc/hostname');
});

test('roots_no_folder', () => {
  const none = new WorkspaceRoots([]);
  assert.equal(none.first, undefined);
  const where = none.locate('x.txt');
  assert.equal(where.root, undefined);
  assert.equal(where.base, undefined);
  assert.equal(where.absolute, path.resolve('x.txt'));
});

test('roots_multi_folder_name_prefix', () => {
  const where = multi.locate('Library/src/lib.c');
  assert.deepEqual(where, { root: lib, sent: 'src/lib.c', base: lib, absolute: path.join(lib, 'src', 'lib.c') });
  assert.deepEqual(multi.locate('Library'), { root: lib, sent: '.', base: lib, absolute: lib });
  // The name counts, not the folder's directory name.
  assert.equal(multi.locate('lib/src/x.c').root, app);
});

test('roots_multi_folder_relative_path_in_the_folder_that_has_it', () => {
  assert.equal(multi.locate('only-in-lib.txt').root, lib);
  assert.equal(multi.locate('only-in-lib.txt').absolute, path.join(lib, 'only-in-lib.txt'));
  // In both: the first folder wins. In none: the first folder.
  assert.equal(multi.locate('a.txt').root, app);
  assert.equal(multi.locate('missing.txt').absolute, path.join(app, 'missing.txt'));
});

test('roots_absolute_path_belongs_to_the_innermost_folder', () => {
  const withNested = new WorkspaceRoots([{ name: 'app', path: app }, { name: 'vendor', path: nested }, { name: 'Library', path: lib }]);
  assert.equal(withNested.locate(path.join(lib, 'a.txt')).root, lib);
  assert.equal(withNested.locate(path.join(nested, 'src', 'v.c')).root, nested);
  assert.equal(withNested.locate(path.join(app, 'a.txt')).root, app);
  assert.equal(withNested.locate('/etc/hostname').root, app);
  assert.equal(withNested.display(path.join(nested, 'src', 'v.c')), 'vendor/src/v.c');
  assert.equal(withNested.display(path.join(lib, 'a.txt')), 'Library/a.txt');
});

test('roots_cwd_given_by_the_caller', () => {
  const where = multi.locate('../Library-is-not-a-prefix-here.txt', path.join(lib, 'src'));
  assert.equal(where.base, path.join(lib, 'src'));
  assert.equal(where.sent, '../Library-is-not-a-prefix-here.txt');
  assert.equal(where.root, lib);
  assert.equal(multi.locate('Library/a.txt', app).absolute, path.join(app, 'Library', 'a.txt'));
});
