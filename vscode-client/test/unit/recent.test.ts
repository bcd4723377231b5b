// The bounded map that keeps the results shown.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecentMap } from '../../src/results/recent';

test('recent_drops_the_oldest_past_the_count', () => {
  const m = new RecentMap<string, string>(3, 1_000, (v) => v.length);
  const dropped: string[] = [];
  for (const k of ['a', 'b', 'c', 'd', 'e']) {
    dropped.push(...m.set(k, k.repeat(10)));
  }
  assert.deepEqual(dropped, ['a', 'b']);
  assert.deepEqual(m.keys(), ['c', 'd', 'e']);
  assert.equal(m.size, 3);
  assert.equal(m.bytes, 30);
  assert.equal(m.get('a'), undefined);
  assert.equal(m.get('e'), 'eeeeeeeeee');
});

test('recent_drops_the_oldest_past_the_bytes', () => {
  const m = new RecentMap<number, Buffer>(100, 1_000, (v) => v.length);
  m.set(1, Buffer.alloc(400));
  m.set(2, Buffer.alloc(400));
  assert.deepEqual(m.set(3, Buffer.alloc(300)), [1]);
  assert.deepEqual(m.keys(), [2, 3]);
  assert.equal(m.bytes, 700);
  // The newest is kept even alone over the bound; everything older goes.
  assert.deepEqual(m.set(4, Buffer.alloc(5_000)), [2, 3]);
  assert.deepEqual(m.keys(), [4]);
  assert.equal(m.bytes, 5_000);
  assert.deepEqual(m.set(5, Buffer.alloc(10)), [4]);
  assert.equal(m.bytes, 10);
});

test('recent_set_again_makes_newest_and_delete_frees', () => {
  const m = new RecentMap<string, number>(2, 100, () => 1);
  m.set('a', 1);
  m.set('b', 2);
  m.set('a', 3);
  assert.deepEqual(m.set('c', 4), ['b']);
  assert.deepEqual(m.keys(), ['a', 'c']);
  assert.equal(m.delete('a'), true);
  assert.equal(m.delete('a'), false);
  assert.equal(m.bytes, 1);
  assert.equal(m.has('c'), true);
});
