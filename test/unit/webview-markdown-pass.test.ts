// The Markdown pass (src/webview/markdownPass.ts): streamed rows are rendered as Markdown once the
// stream has been quiet for QUIET_MS, never while text or messages wait to go in, and a pass that
// goes on over several frames stops when text comes meanwhile.
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import type { Entity } from '../../src/transcript/model';
import { MarkdownPass, QUIET_MS } from '../../src/webview/markdownPass';
import type { Row } from '../../src/webview/rows';

/** Rows without elements (an open disclosure shows its body; no body, so nothing is built). */
function row(key: string, text: string): Row {
  const entity: Entity = { kind: 'agent_message', key, parts: [{ type: 'text', text }] };
  return { key, entity, el: undefined as never, disclosure: true, open: true, dirty: true };
}

function setup(rows: Row[], frameChars = 10, renderer: { ready(): boolean; load(): Promise<boolean> } = { ready: () => true, load: async () => true }) {
  let clock = 0;
  let waiting = false;
  let lastAppendAt = 0;
  const frames: Array<() => void> = [];
  const rendered: string[] = [];
  const signals: string[] = [];
  const dirty = new Set(rows);
  const pass = new MarkdownPass({
    dirty,
    lastAppendAt: () => lastAppendAt,
    waiting: () => waiting,
    now: () => clock,
    requestFrame: (f) => frames.push(f),
    rows: () => rows,
    frameChars,
    rendered: (r) => rendered.push(r.key),
    keepingPlace: (change) => void change(),
    signal: (state) => signals.push(state),
    ready: () => renderer.ready(),
    load: () => renderer.load(),
  });
  return {
    pass, dirty, rendered, signals, frames,
    /** Moves the clock and the timers. */
    wait(ms: number) { clock += ms; mock.timers.tick(ms); },
    runFrames() { for (const f of frames.splice(0)) f(); },
    append() { lastAppendAt = clock; },
    setWaiting(value: boolean) { waiting = value; },
  };
}

/** Runs `body` with node:test's fake setTimeout, restored after. */
async function withTimers(body: () => void | Promise<void>): Promise<void> {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    await body();
  } finally {
    mock.timers.reset();
  }
}

test('dirty rows are rendered as Markdown once the stream has been quiet for QUIET_MS, then the pass says done', () =>
  withTimers(() => {
    const s = setup([row('a', 'one')]);
    s.wait(1);
    s.append();
    s.pass.schedule();
    assert.deepEqual(s.signals, ['pending']);
    s.wait(QUIET_MS - 1);
    assert.equal(s.frames.length, 0, 'not before the stream has been quiet for QUIET_MS');
    s.wait(1);
    s.runFrames();
    assert.deepEqual(s.rendered, ['a']);
    assert.equal(s.dirty.size, 0);
    assert.deepEqual(s.signals, ['pending', 'done']);
  }));

test('no pass starts while messages or streamed text wait to go in, however long ago text last went in', () =>
  withTimers(() => {
    const s = setup([row('a', 'one')]);
    s.pass.schedule();
    // The stream starts as the quiet timer is due: its messages wait for the next frame.
    s.setWaiting(true);
    s.wait(QUIET_MS);
    assert.equal(s.frames.length, 0, 'the timer sees the waiting messages');
    s.setWaiting(false);
    s.append();
    s.wait(QUIET_MS);
    s.runFrames();
    assert.deepEqual(s.rendered, ['a'], 'rendered once quiet again');
  }));

test('a pass checks again in its frame: text that came after its timer defers it', () =>
  withTimers(() => {
    const s = setup([row('a', 'one')]);
    s.pass.schedule();
    s.wait(QUIET_MS);
    assert.equal(s.frames.length, 1);
    // Between the timer and the frame, the stream's first frame put text in.
    s.append();
    s.runFrames();
    assert.deepEqual(s.rendered, [], 'not rendered in the frame text went in');
    assert.equal(s.signals.at(-1), 'pending');
    s.wait(QUIET_MS);
    s.runFrames();
    assert.deepEqual(s.rendered, ['a']);
    assert.equal(s.signals.at(-1), 'done');
  }));

test('a pass that goes on over several frames stops when the stream resumes, and goes on once it is quiet', () =>
  withTimers(() => {
    // 10 characters a frame: one row each frame.
    const s = setup([row('a', 'x'.repeat(10)), row('b', 'y'.repeat(10)), row('c', 'z'.repeat(10))]);
    s.pass.schedule();
    s.wait(QUIET_MS);
    s.runFrames();
    assert.deepEqual(s.rendered, ['a']);
    assert.equal(s.frames.length, 1, 'the pass goes on in the next frame');
    // The stream resumes into row b before that frame.
    s.setWaiting(true);
    s.runFrames();
    assert.deepEqual(s.rendered, ['a'], 'b, being streamed into, is not rendered again and again');
    s.setWaiting(false);
    s.append();
    s.wait(QUIET_MS);
    while (s.frames.length) s.runFrames();
    assert.deepEqual(s.rendered, ['a', 'b', 'c']);
    assert.equal(s.signals.at(-1), 'done');
  }));

test('the first pass loads the renderer before rendering; a renderer that cannot load leaves the rows plain and says done', () =>
  withTimers(async () => {
    let loads = 0;
    let loaded = false;
    const s = setup([row('a', 'one')], 10, { ready: () => loaded, load: async () => { loads++; loaded = true; return true; } });
    s.pass.schedule();
    s.wait(QUIET_MS);
    assert.equal(loads, 1, 'the pass due loads the renderer');
    assert.equal(s.frames.length, 0, 'nothing is rendered before it has loaded');
    await Promise.resolve();
    s.runFrames();
    assert.deepEqual(s.rendered, ['a']);
    assert.deepEqual(s.signals, ['pending', 'done']);

    const failing = setup([row('b', 'two')], 10, { ready: () => false, load: async () => false });
    failing.pass.schedule();
    failing.wait(QUIET_MS);
    await Promise.resolve();
    assert.equal(failing.frames.length, 0);
    assert.deepEqual(failing.rendered, [], 'the rows stay plain text');
    assert.deepEqual(failing.signals, ['pending', 'done'], 'no pass is left pending for a test to wait on');
  }));
