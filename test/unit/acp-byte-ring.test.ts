// The reader's ring of its own copies of the agent's output (src/acp/byteRing.ts): a piece's room
// is reused only once it and every piece copied before it were released, so what a drain still
// reads is never written over; where there is no room, the caller is told (it copies elsewhere).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ByteRing } from '../../src/acp/byteRing';

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

test('a copy holds its bytes until released, and the room of released pieces is reused in turn, never a held one', () => {
  const ring = new ByteRing(100);
  const a = ring.copy(bytes(40, 1))!;
  const b = ring.copy(bytes(40, 2))!;
  assert.ok(a && b, 'two pieces fit');
  assert.equal(ring.copy(bytes(30, 3)), undefined, 'no run of 30 bytes is free: the caller keeps its own copy');
  // Released out of order: b's room comes back only with a's, which is older.
  ring.release(b);
  assert.equal(ring.copy(bytes(30, 3)), undefined, 'b released, but a (copied before it) still holds the ring');
  assert.ok(a.every((x) => x === 1), 'a is as copied');
  ring.release(a.subarray(10, 20));
  assert.ok(ring.empty, 'a view of a piece releases the piece');
  const c = ring.copy(bytes(60, 4))!;
  const d = ring.copy(bytes(40, 5))!;
  assert.ok(c && d, 'all the room is back');
  ring.release(c);
  // c's room (60 bytes at the start) is free, d's (the next 40) is not: a copy wraps to the start, before d.
  const e = ring.copy(bytes(50, 6))!;
  assert.ok(e, 'the room before the oldest held piece is used, round the end');
  assert.ok(d.every((x) => x === 5), 'the held piece after it is untouched');
  assert.equal(ring.copy(bytes(20, 7)), undefined, 'between the wrapped head and the held piece, 10 bytes: too few');
  ring.release(d);
  ring.release(e);
  assert.ok(ring.empty);
});

test('a release of what the ring did not copy, of an empty view, or a second release changes nothing', () => {
  const ring = new ByteRing(64);
  const a = ring.copy(bytes(32, 1))!;
  const b = ring.copy(bytes(32, 2))!;
  ring.release(new Uint8Array(32));
  ring.release(a.subarray(5, 5));
  assert.equal(ring.copy(bytes(1, 3)), undefined, 'both still held');
  ring.release(a);
  ring.release(a);
  assert.equal(ring.copy(bytes(40, 3)), undefined, 'only a came back (32 bytes): a second release of it did not free b');
  assert.ok(b.every((x) => x === 2), 'b is as copied');
  assert.ok(ring.copy(bytes(32, 3)), 'a\'s room');
});

test('a piece larger than the ring, or empty, is not copied', () => {
  const ring = new ByteRing(16);
  assert.equal(ring.copy(bytes(17, 1)), undefined);
  assert.equal(ring.copy(new Uint8Array(0)), undefined);
  assert.ok(ring.empty);
});
