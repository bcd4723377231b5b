// The @-mention parser, and expansion through the real readerd.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ReaderdClient } from '../../src/daemon/client';
import { codeRanges, expandMentions, parseMentions, typingMention } from '../../src/mentions/mentions';
import { ReadResult, XmlReadParams } from '../../src/protocol';
import { makeWorkspace, readerdBinary, removeWorkspace } from './helpers';

const paths = (text: string): string[] => parseMentions(text).map((m) => m.path);

describe('parseMentions', () => {
  test('mentions_relative_path', () => {
    const m = parseMentions('look at @/src/main.c please');
    assert.equal(m.length, 1);
    assert.equal(m[0]!.path, 'src/main.c');
    assert.equal(m[0]!.raw, '@/src/main.c');
    assert.equal(m[0]!.start, 8);
    assert.equal(m[0]!.folder, false);
  });

  test('mentions_folder_with_trailing_slash', () => {
    const m = parseMentions('@/docs/ and @/ (the root)');
    assert.deepEqual(m.map((x) => [x.path, x.folder]), [['docs', true], ['.', true]]);
  });

  test('mentions_quoted_path_with_spaces', () => {
    const m = parseMentions('compare @"/docs/my file.md" with @/a.txt');
    assert.deepEqual(m.map((x) => x.path), ['docs/my file.md', 'a.txt']);
    assert.equal(m[0]!.raw, '@"/docs/my file.md"');
  });

  test('mentions_escaped_space', () => {
    assert.deepEqual(paths('see @/docs/my\\ file.md now'), ['docs/my file.md']);
  });

  test('mentions_trailing_punctuation_is_not_part_of_path', () => {
    assert.deepEqual(paths('Read @/a.txt, @/src/main.c. And (@/docs/)!'), ['a.txt', 'src/main.c', 'docs']);
    const m = parseMentions('end @/a.txt.');
    assert.equal(m[0]!.raw, '@/a.txt');
  });

  test('mentions_not_emails_or_urls', () => {
    assert.deepEqual(paths('mail me@example.com or me@/x, see https://example.com/@/user and http://h/@"/q"'), []);
    assert.deepEqual(paths('user@host:/path and foo@/bar'), []);
  });

  test('mentions_not_outside_the_folder', () => {
    assert.deepEqual(paths('@/../secret @/src/../../x @/src/../a.txt'), ['a.txt']);
  });

  test('mentions_at_line_starts_and_after_brackets', () => {
    assert.deepEqual(paths('@/a.txt\n@/src/main.c\n[@/docs/notes.txt]'), ['a.txt', 'src/main.c', 'docs/notes.txt']);
  });

  test('mentions_lone_at_and_plain_words_are_not_mentions', () => {
    assert.deepEqual(paths('@ alone, @user, @@/x, a/@/b'), []);
  });

  test('mentions_bare_paths_are_candidates', () => {
    const m = parseMentions('explain @src/main.c and @docs/ with @README.md.');
    assert.deepEqual(m.map((x) => [x.path, x.folder, x.bare, x.raw]), [
      ['src/main.c', false, true, '@src/main.c'],
      ['docs', true, true, '@docs/'],
      ['README.md', false, true, '@README.md'],
    ]);
  });

  test('mentions_quoted_without_slash', () => {
    const m = parseMentions('see @"docs/my file.md" now');
    assert.deepEqual(m.map((x) => [x.path, x.bare, x.raw]), [['docs/my file.md', false, '@"docs/my file.md"']]);
  });

  test('mentions_not_decorators_or_handles', () => {
    // Without a dot between names or a slash, a bare word is no path; with one it is only a
    // candidate (decided by the file existing).
    assert.deepEqual(paths('@property\n@Override\n@dataclass\nping @alice'), []);
    assert.deepEqual(parseMentions('@app.route("/x")').map((x) => [x.path, x.bare]), [['app.route', true]]);
  });

  test('mentions_not_in_markdown_code', () => {
    const text = [
      'read @/a.txt',
      '```python',
      '@/src/main.c',
      '@pytest.fixture',
      '```',
      'and `@/docs/` inline, but @/logo.png here',
      '~~~',
      '@/x.txt',
      '~~~',
      'and ``code with ` @/y.txt`` then @/z.txt',
    ].join('\n');
    assert.deepEqual(paths(text), ['a.txt', 'logo.png', 'z.txt']);
  });

  test('mentions_code_ranges_of_an_unclosed_fence_run_to_the_end', () => {
    const text = 'a\n```\n@/x\n';
    assert.deepEqual(codeRanges(text), [[2, text.length]]);
    assert.deepEqual(paths(text), []);
  });

  test('mentions_typing_at_cursor', () => {
    assert.deepEqual(typingMention('see @'), { start: 4, quoted: false, typed: '' });
    assert.deepEqual(typingMention('see @/src/ma'), { start: 4, quoted: false, typed: 'src/ma' });
    assert.deepEqual(typingMention('(@docs/no'), { start: 1, quoted: false, typed: 'docs/no' });
    assert.deepEqual(typingMention('@"/docs/my fi'), { start: 0, quoted: true, typed: 'docs/my fi' });
    assert.equal(typingMention('me@exa'), undefined);
    assert.equal(typingMention('see @/a.txt and'), undefined);
    assert.equal(typingMention('```\n@/sr'), undefined);
    assert.equal(typingMention('in `@/sr'), undefined);
  });
});

describe('expandMentions with readerd', () => {
  let root: string;
  let client: ReaderdClient;
  let requests: XmlReadParams[];

  before(async () => {
    root = makeWorkspace();
    client = await ReaderdClient.spawn(readerdBinary());
    requests = [];
  });

  after(async () => {
    await client.shutdown();
    removeWorkspace(root);
  });

  const deps = () => ({
    root,
    read: (params: XmlReadParams) => {
      requests.push(params);
      return client.read(params);
    },
  });

  test('expand_text_image_folder_in_one_request', async () => {
    requests = [];
    const text = 'Explain @/a.txt, the logo @/logo.png and the docs in @/docs/ (see @"/docs/my file.md").';
    const out = await expandMentions(text, deps());
    assert.equal(requests.length, 1, 'one read request');
    // The folder gives its files one level deep; the file mentioned twice is read once.
    assert.deepEqual(out.paths, ['a.txt', 'logo.png', 'docs/my file.md', 'docs/notes.txt']);
    assert.equal(requests[0]!.lineNumbers, false);
    assert.equal(requests[0]!.cwd, root);
    assert.ok(out.text.startsWith(
      "Explain 'a.txt' (see below for file content), the logo 'logo.png' (see below for file content) and the docs in " +
        "'docs/' (see below for folder content) (see 'docs/my file.md' (see below for file content)).\n\n<ReadResults",
    ), out.text.slice(0, 300));
    const contents = [...out.text.matchAll(/<Content path='([^']*)'/g)].map((m) => m[1]);
    assert.deepEqual(contents, out.paths);
    // Raw content: no line numbers.
    assert.match(out.text, /<!\[CDATA\[alpha\nbeta\ngamma\n/);
    assert.match(out.text, /<!\[CDATA\[# Title\n/);
    assert.doesNotMatch(out.text, /hidden\.txt/);
    assert.equal(out.images.length, 1);
    assert.equal(out.images[0]!.path, 'logo.png');
    assert.equal(out.images[0]!.mediaType, 'image/png');
    assert.deepEqual(Buffer.from(out.images[0]!.data, 'base64'), fs.readFileSync(path.join(root, 'logo.png')));
  });

  test('expand_folder_without_slash_and_missing_file', async () => {
    requests = [];
    const out = await expandMentions('@/src and @/nope.txt', deps());
    assert.deepEqual(out.paths, ['src/main.c', 'nope.txt']);
    assert.match(out.text, /^'src\/' \(see below for folder content\) and 'nope.txt' \(not read: no such file\)\n/);
    assert.match(out.text, /<Content path='nope.txt' code='FILE_NOT_FOUND'/);
  });

  test('expand_bare_mentions_only_when_the_path_exists', async () => {
    requests = [];
    fs.writeFileSync(path.join(root, 'app.py'), '@app.route("/x")\ndef index():\n    return "hi"\n');
    const text = 'Why does @src/main.c return 0? See @docs/ and @app.py, not @app.route or me@example.com or @nope/x.c.';
    const out = await expandMentions(text, deps());
    assert.equal(requests.length, 1, 'one read request');
    assert.deepEqual(out.mentions.map((m) => m.raw), ['@src/main.c', '@docs/', '@app.py']);
    assert.deepEqual(out.paths, ['src/main.c', 'docs/my file.md', 'docs/notes.txt', 'app.py']);
    assert.ok(out.text.startsWith("Why does 'src/main.c' (see below for file content) return 0? See 'docs/' (see below for folder content) and " +
      "'app.py' (see below for file content), not @app.route or me@example.com or @nope/x.c.\n\n<ReadResults"), out.text.slice(0, 300));
    // The decorator inside the file read is content, not a mention.
    assert.match(out.text, /<Content path='app.py'[^>]*>\s*<!\[CDATA\[@app.route\("\/x"\)\n/);
    assert.equal(out.result!.files.filter((f) => f.code).length, 0);
  });

  test('expand_refused_mention_says_why_where_it_is', async () => {
    requests = [];
    fs.writeFileSync(path.join(root, '.env'), 'KEY=secret\n');
    // The daemon fenced as the extension fences it: .env excluded.
    const fenced = await ReaderdClient.spawn(readerdBinary());
    await fenced.initialize({ rootPath: root, confineToRoot: true, exclude: ['.env'] });
    const out = await expandMentions('check @.env and @a.txt, mail me@example.com, not `@.env`', {
      root,
      read: (params: XmlReadParams) => fenced.read(params) as Promise<ReadResult>,
    });
    await fenced.shutdown();
    fs.unlinkSync(path.join(root, '.env'));
    assert.deepEqual(out.mentions.map((m) => m.raw), ['@.env', '@a.txt']);
    assert.ok(out.text.startsWith("check '.env' (not read: excluded by readerd.exclude) and 'a.txt' (see below for file content), " +
      'mail me@example.com, not `@.env`\n\n<ReadResults'), out.text.slice(0, 200));
    assert.doesNotMatch(out.text, /KEY=secret/);
  });

  test('expand_bare_readme_and_folder_from_the_root', async () => {
    requests = [];
    fs.writeFileSync(path.join(root, 'README.md'), '# project\n');
    const out = await expandMentions('see @README.md and @src/ please', deps());
    fs.unlinkSync(path.join(root, 'README.md'));
    assert.deepEqual(out.paths, ['README.md', 'src/main.c']);
    assert.match(out.text, /^see 'README.md' \(see below for file content\) and 'src\/' \(see below for folder content\) please/);
    assert.match(out.text, /<Content path='README.md'[^>]*>\s*<!\[CDATA\[# project\n/);
  });

  test('expand_ignores_mentions_in_code_blocks', async () => {
    requests = [];
    const out = await expandMentions('Fix @/a.txt:\n\n```\n@/src/main.c\n```\nnot `@/logo.png`', deps());
    assert.deepEqual(out.paths, ['a.txt']);
    assert.match(out.text, /```\n@\/src\/main.c\n```\nnot `@\/logo.png`\n\n<ReadResults/);
    assert.equal(out.images.length, 0);
  });

  test('expand_extra_paths_and_render_in_the_same_request', async () => {
    requests = [];
    const out = await expandMentions('look at @/a.txt', { ...deps(), extraPaths: ['logo.png', 'a.txt'], render: true, images: { maxDimension: 24 } });
    assert.equal(requests.length, 1);
    assert.deepEqual(out.paths, ['a.txt', 'logo.png']);
    assert.deepEqual(requests[0]!.paths, [{ path: 'a.txt', render: true }, { path: 'logo.png', render: true }]);
    assert.equal(out.images.length, 1);
    assert.equal(Math.max(out.images[0]!.width, out.images[0]!.height), 24, 'the images params are sent');
  });

  test('expand_without_mentions_sends_nothing', async () => {
    requests = [];
    const out = await expandMentions('no mentions here, write to me@example.com', deps());
    assert.equal(out.text, 'no mentions here, write to me@example.com');
    assert.equal(requests.length, 0);
    assert.deepEqual(out.images, []);
  });
});
