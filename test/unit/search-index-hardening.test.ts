// The search index against what it did not write itself (issue 30): a damaged manifest or file,
// a manifest `file` that is a path, another window (a second SearchIndex, and a second Node
// process) writing the same folder, a full disk (a real tmpfs), permissions; and the indexer's
// part: deleted sessions outside the Sessions view's scope, -32002 on load, agents no longer
// configured, and the coverage of a replay whose indexing failed. Real SearchIndex instances on
// real temp folders, the reference agent as a real process.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { parseQuery } from '../../src/search/query';
import { SearchIndexer } from '../../src/search/indexer';
import { SearchIndex, type SearchResult, type SessionMeta } from '../../src/search/searchIndex';
import type { Entity } from '../../src/transcript/model';
import { Timeline } from '../../src/transcript/timeline';
import { replayTimelines } from '../../src/transcript/replayTimelines';
import { markSessionDeleted } from '../agent/store';
import { cleanUpAfterEach, onCleanUp, record, setupModel, store, tempDir, until } from './sessionsFixture';

const SELF = fileURLToPath(import.meta.url);
/** Set in a child process of this file: it plays another window (or fills a full disk) instead of running the tests. */
const CHILD = process.env.ACP_SEARCH_HARDENING_CHILD;

const meta = (sessionId: string, agent = 'a'): SessionMeta => ({ agent, sessionId, cwd: '/x', archived: false, updatedAt: `2026-01-01T00:00:${String(sessionId.length % 60).padStart(2, '0')}Z` });
const ids = (result: SearchResult) => result.sessions.map((s) => s.session.sessionId).sort();
const find = (index: SearchIndex, query: string) => index.search(parseQuery(query), { limit: 500 });

interface Manifest {
  version: number;
  sessions: ({ file: string; sessionId: string; blocks: { off: number; len: number; bloomLen: number }[] } & Record<string, unknown>)[];
}
const readManifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as Manifest;
const writeManifest = (dir: string, manifest: unknown) => writeFileSync(join(dir, 'index.json'), JSON.stringify(manifest));

function logOf() {
  const warnings: string[] = [];
  return { warnings, log: { warn: (m: string) => warnings.push(m), info: () => undefined } };
}

/** An index in a fresh folder with sessions s1..sN, each saying "zebra" and its own word; flushed, disposed. */
async function indexOf(count: number): Promise<string> {
  const dir = join(tempDir('acp-search-hardening-'), 'index');
  const index = await SearchIndex.open(dir);
  for (let i = 1; i <= count; i++) await index.indexRecords(meta(`s${i}`), [{ where: 'agent', index: 0, text: `the zebra and word${i} here` }]);
  await index.dispose();
  return dir;
}

async function opened(dir: string, log?: ReturnType<typeof logOf>['log']): Promise<SearchIndex> {
  const index = await SearchIndex.open(dir, log ? { log } : {});
  onCleanUp(() => index.dispose());
  return index;
}

/** Runs this file as a child process with `args` (JSON) and resolves with what it printed last (JSON). */
function child(args: unknown, wrap: string[] = []): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const command = wrap.length ? wrap[0] : process.execPath;
    const proc = spawn(command, [...wrap.slice(1), ...(wrap.length ? [process.execPath] : []), SELF], {
      env: { ...process.env, ACP_SEARCH_HARDENING_CHILD: JSON.stringify(args) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.stderr.on('data', (d) => (err += d));
    const guard = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    proc.on('exit', (code) => {
      clearTimeout(guard);
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0) reject(new Error(`the child exited ${code}: ${err}${out}`));
      else resolve(JSON.parse(last));
    });
  });
}

async function childMain(args: { mode: 'window'; dir: string; prefix: string; count: number } | { mode: 'full'; dir: string }): Promise<unknown> {
  if (args.mode === 'window') {
    // Another window: indexes its sessions one by one, its manifest written between them.
    const index = await SearchIndex.open(args.dir);
    for (let i = 0; i < args.count; i++) {
      await index.indexRecords(meta(`${args.prefix}${i}`), [{ where: 'you', index: 0, text: `shared ${args.prefix}word${i}` }]);
      if (i % 3 === 0) await index.flush();
    }
    await index.dispose();
    return { done: args.count };
  }
  // A full disk: a tmpfs of 256 KiB, filled with text that does not compress.
  const { warnings, log } = logOf();
  const index = await SearchIndex.open(args.dir, { log });
  let seed = 7;
  const noise = (chars: number) => {
    let text = '';
    for (let i = 0; i < chars; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      text += String.fromCharCode(33 + (seed % 90));
    }
    return text;
  };
  const errors: string[] = [];
  let indexed = 0;
  for (let i = 0; i < 12; i++) {
    try {
      await index.indexRecords(meta(`full${i}`), [{ where: 'agent', index: 0, text: `word${i} ${noise(60_000)}` }]);
      indexed++;
    } catch (error) {
      errors.push(`${(error as { code?: string }).code}: ${(error as Error).message}`);
    }
  }
  await index.flush();
  const left = readdirSync(args.dir).filter((n) => n.endsWith('.tmp'));
  const found = ids(await find(index, 'word0')).length;
  await index.dispose();
  return { indexed, errors, warnings, left, found, diskFull: index.diskFull };
}

if (CHILD) {
  const result = await childMain(JSON.parse(CHILD));
  console.log(JSON.stringify(result));
} else {
  cleanUpAfterEach();

  describe('Search index: a damaged index is mended, one session at a time', () => {
    test('manifest entries that are null or have no blocks are left out when read, logged once; the other sessions answer, and Clear works', async () => {
      const dir = await indexOf(4);
      const manifest = readManifest(dir);
      const [s1, s2, s3] = ['s1', 's2', 's3'].map((id) => manifest.sessions.findIndex((s) => s.sessionId === id));
      (manifest.sessions as unknown[])[s1] = null;
      delete (manifest.sessions[s2] as Partial<Manifest['sessions'][number]>).blocks;
      manifest.sessions[s3].blocks = 'many' as never;
      writeManifest(dir, manifest);
      const { warnings, log } = logOf();
      const index = await opened(dir, log);
      assert.deepEqual(index.sessions().map((s) => s.sessionId).sort(), ['s4']);
      assert.deepEqual(ids(await find(index, 'zebra')), ['s4']);
      assert.equal(warnings.length, 1, warnings.join('\n'));
      assert.match(warnings[0], /3 of its entries were damaged or named a missing file and were left out; their sessions will be indexed again/);
      await index.flush();
      assert.deepEqual(readManifest(dir).sessions.map((s) => s?.sessionId), ['s4'], 'the manifest is written again without them');
      await opened(dir, log);
      assert.equal(warnings.length, 1, 'and the next open has nothing to say');
      await index.clear();
      assert.deepEqual(index.sessions(), []);
      assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.bin')), []);
      await index.flush();
      assert.deepEqual(readManifest(dir).sessions, []);
    });

    test('one flipped byte in one session\'s block: that session is dropped (no longer indexed, its file removed) and logged once; the others are found', async () => {
      const dir = await indexOf(3);
      const entry = readManifest(dir).sessions.find((s) => s.sessionId === 's2')!;
      const path = join(dir, entry.file);
      const bytes = readFileSync(path);
      // A byte of the deflated block (after the filters): inflate fails with "invalid distance too far back" or alike.
      for (const at of [entry.blocks[0].off, entry.blocks[0].off + 1]) bytes[at] ^= 0xff;
      writeFileSync(path, bytes);
      const { warnings, log } = logOf();
      const index = await opened(dir, log);
      assert.deepEqual(ids(await find(index, 'zebra')), ['s1', 's3']);
      assert.equal(index.get('a', 's2'), undefined, 's2 no longer counts as indexed: the indexer picks it up again');
      assert.deepEqual(ids(await find(index, 'zebra')), ['s1', 's3']);
      assert.equal(warnings.length, 1, warnings.join('\n'));
      assert.match(warnings[0], /is damaged .*session s2 of a is left out and will be indexed again/);
      await index.flush();
      assert.ok(!existsSync(path), 'the damaged file is removed');
      assert.deepEqual(readManifest(dir).sessions.map((s) => s.sessionId).sort(), ['s1', 's3'], 'and after a restart it stays out');
      // Indexed again, it is found again.
      await index.indexRecords(meta('s2'), [{ where: 'agent', index: 0, text: 'the zebra again' }]);
      assert.deepEqual(ids(await find(index, 'zebra')), ['s1', 's2', 's3']);
    });

    test('a truncated file, and a file that is gone: only those sessions are left out', async () => {
      const dir = await indexOf(4);
      const sessions = readManifest(dir).sessions;
      const s1 = sessions.find((s) => s.sessionId === 's1')!;
      const s2 = sessions.find((s) => s.sessionId === 's2')!;
      const s3 = sessions.find((s) => s.sessionId === 's3')!;
      // Inside the block: the filters are whole.
      truncateSync(join(dir, s1.file), s1.blocks[0].off + 3);
      // Inside the filters.
      truncateSync(join(dir, s2.file), 10);
      const { warnings, log } = logOf();
      const index = await opened(dir, log);
      // Gone after the index opened (another window's Clear, a user's hand).
      const { rmSync } = await import('node:fs');
      rmSync(join(dir, s3.file));
      const dropped: string[] = [];
      index.onDidDrop?.((s) => dropped.push(s.sessionId));
      assert.deepEqual(ids(await find(index, 'zebra')), ['s4']);
      assert.deepEqual(dropped.sort(), ['s1', 's2', 's3'], 'each dropped session is reported (the indexer counts it missing)');
      assert.deepEqual(index.sessions().map((s) => s.sessionId), ['s4']);
      assert.equal(warnings.length, 3, warnings.join('\n'));
      assert.ok(warnings.some((w) => new RegExp(`${s3.file} is missing`).test(w)));
    });

    test('an entry whose file is gone when the index opens is dropped (indexed again)', async () => {
      const dir = await indexOf(2);
      const s1 = readManifest(dir).sessions.find((s) => s.sessionId === 's1')!;
      const { rmSync } = await import('node:fs');
      rmSync(join(dir, s1.file));
      const index = await opened(dir);
      assert.equal(index.get('a', 's1'), undefined);
      assert.deepEqual(ids(await find(index, 'zebra')), ['s2']);
    });
  });

  describe('Search index: the manifest names files, never paths', () => {
    test('an entry whose file is "../victim.txt" is left out, and removing its session deletes nothing outside the folder', async () => {
      const dir = await indexOf(1);
      const victim = join(dir, '..', 'victim.txt');
      writeFileSync(victim, 'keep me');
      const manifest = readManifest(dir);
      manifest.sessions.push({ ...manifest.sessions[0], sessionId: 'evil', file: '../victim.txt' });
      manifest.sessions.push({ ...manifest.sessions[0], sessionId: 'abs', file: victim });
      writeManifest(dir, manifest);
      const index = await opened(dir);
      await index.remove('a', 'evil');
      await index.remove('a', 'abs');
      await index.flush();
      assert.ok(existsSync(victim), 'removing the session deleted nothing outside the index folder');
      assert.equal(index.get('a', 'evil'), undefined, 'the entry was never taken in');
      await index.clear();
      assert.equal(readFileSync(victim, 'utf8'), 'keep me');
    });
  });

  describe('Search index: readable by this user alone', () => {
    test('the folder is 0700 and its files 0600, also a folder an older version made 0755 with files 0644', { skip: process.platform === 'win32' && 'POSIX modes' }, async () => {
      const dir = await indexOf(2);
      // As older versions left them.
      chmodSync(dir, 0o755);
      for (const name of readdirSync(dir)) chmodSync(join(dir, name), 0o644);
      const index = await opened(dir);
      await index.indexRecords(meta('s3'), [{ where: 'you', index: 0, text: 'new words' }]);
      await index.flush();
      assert.equal(statSync(dir).mode & 0o777, 0o700);
      const names = readdirSync(dir);
      assert.ok(names.filter((n) => n.endsWith('.bin')).length === 3 && names.includes('index.json'), names.join());
      for (const name of names) assert.equal(statSync(join(dir, name)).mode & 0o777, 0o600, name);
      const fresh = join(tempDir('acp-search-mode-'), 'nested', 'index');
      await opened(fresh);
      assert.equal(statSync(fresh).mode & 0o777, 0o700);
    });
  });

  describe('Search index: two windows on one folder', () => {
    test('sessions indexed in either window are all kept, whichever writes last, and each window finds the other\'s', async () => {
      const dir = join(tempDir('acp-search-windows-'), 'index');
      const a = await opened(dir);
      const b = await opened(dir);
      await a.indexRecords(meta('from-a'), [{ where: 'you', index: 0, text: 'ocelot in a' }]);
      await b.indexRecords(meta('from-b'), [{ where: 'you', index: 0, text: 'ocelot in b' }]);
      await a.flush();
      await b.flush();
      await a.indexRecords(meta('from-a2'), [{ where: 'you', index: 0, text: 'ocelot in a again' }]);
      await a.flush();
      assert.deepEqual(ids(await find(a, 'ocelot')), ['from-a', 'from-a2', 'from-b']);
      assert.deepEqual(ids(await find(b, 'ocelot')), ['from-a', 'from-a2', 'from-b']);
      assert.ok(b.get('a', 'from-a2'), 'b counts what a indexed');
      const restarted = await opened(dir);
      assert.deepEqual(ids(await find(restarted, 'ocelot')), ['from-a', 'from-a2', 'from-b']);
    });

    test('a session deleted in one window stays deleted after the other writes, and after a restart, also one the deleting window had not seen indexed', async () => {
      const dir = join(tempDir('acp-search-windows-'), 'index');
      const a = await opened(dir);
      const b = await opened(dir);
      // Indexed in b after a opened: a's view does not hold them.
      await b.indexRecords(meta('gone'), [{ where: 'you', index: 0, text: 'lynx gone' }]);
      await b.indexRecords(meta('kept'), [{ where: 'you', index: 0, text: 'lynx kept' }]);
      await b.indexRecords(meta('seen'), [{ where: 'you', index: 0, text: 'lynx seen' }]);
      await b.flush();
      await a.remove('a', 'gone');
      await a.flush();
      assert.deepEqual(ids(await find(a, 'lynx')), ['kept', 'seen']);
      // And one both had seen.
      await b.remove('a', 'seen');
      await b.indexRecords(meta('new'), [{ where: 'you', index: 0, text: 'lynx new' }]);
      await b.flush();
      await a.indexRecords(meta('late'), [{ where: 'you', index: 0, text: 'lynx late' }]);
      await a.flush();
      assert.deepEqual(ids(await find(b, 'lynx')), ['kept', 'late', 'new'], 'b no longer finds what a deleted');
      assert.deepEqual(ids(await find(a, 'lynx')), ['kept', 'late', 'new'], 'a no longer finds what b deleted');
      assert.deepEqual(ids(await find(await opened(dir), 'lynx')), ['kept', 'late', 'new']);
      assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.bin')).length, 3, 'the deleted sessions\' files are removed');
    });

    test('a window that opens never deletes a file another running window wrote and has not listed yet', async () => {
      const dir = join(tempDir('acp-search-windows-'), 'index');
      const a = await opened(dir);
      // Written, its manifest not yet (it is written shortly after).
      await a.indexRecords(meta('early'), [{ where: 'you', index: 0, text: 'caracal early' }]);
      assert.ok(!existsSync(join(dir, 'index.json')), 'the manifest is not written yet');
      const b = await opened(dir);
      await a.flush();
      assert.deepEqual(ids(await find(b, 'caracal')), ['early']);
      assert.deepEqual(ids(await find(await opened(dir), 'caracal')), ['early']);
    });

    test('stale temp files and files of windows that are gone are removed when the index opens; a running window\'s are not', async () => {
      const dir = join(tempDir('acp-search-windows-'), 'index');
      const running = await opened(dir);
      await running.indexRecords(meta('x'), [{ where: 'you', index: 0, text: 'x' }]);
      // The window's id, as its file's name carries it.
      const runningOwner = readdirSync(dir).find((n) => n.endsWith('.bin'))!.split('-')[1].slice(0, 8);
      // A window that is gone: its record names a process that has exited.
      const exited = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
      const goneOwner = '0badf00d';
      writeFileSync(join(dir, `owner-${goneOwner}.json`), JSON.stringify({ pid: Number(exited.stdout), host: (await import('node:os')).hostname() }));
      const hash = 'ab'.repeat(10);
      const stale = [`${hash}-${goneOwner}00000000.bin.tmp`, `${hash}-${goneOwner}11111111.bin`, `${hash}-12345678.bin.tmp`, `index.json.${goneOwner}.22222222.tmp`, 'index.json.33333333.tmp'];
      const inFlight = [`${hash}-${runningOwner}44444444.bin.tmp`, `index.json.${runningOwner}.55555555.tmp`];
      for (const name of [...stale, ...inFlight]) writeFileSync(join(dir, name), 'partial');
      await opened(dir);
      const left = readdirSync(dir);
      for (const name of stale) assert.ok(!left.includes(name), `${name} is removed`);
      assert.ok(!left.includes(`owner-${goneOwner}.json`));
      for (const name of inFlight) assert.ok(left.includes(name), `${name} of the running window stays`);
    });

    test('the lock of a window that died is broken at once; a running window\'s lock is waited for, and the write done once it is let go', async () => {
      const { hostname } = await import('node:os');
      const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
      const dir = join(tempDir('acp-search-lock-'), 'index');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'index.lock'), JSON.stringify({ token: 'deadbeef.00000000', pid: dead, host: hostname() }));
      const index = await opened(dir);
      const started = Date.now();
      await index.indexRecords(meta('one'), [{ where: 'you', index: 0, text: 'serval one' }]);
      await index.flush();
      assert.ok(Date.now() - started < 2_000, `not kept waiting (${Date.now() - started} ms)`);
      assert.deepEqual(readManifest(dir).sessions.map((s) => s.sessionId), ['one']);
      assert.ok(!existsSync(join(dir, 'index.lock')), 'the lock is let go');
      // Held by a window that runs (this process): the write waits, gives up for now, and tries again.
      writeFileSync(join(dir, 'index.lock'), JSON.stringify({ token: 'cafebabe.00000000', pid: process.pid, host: hostname() }));
      await index.indexRecords(meta('two'), [{ where: 'you', index: 0, text: 'serval two' }]);
      await index.flush();
      assert.deepEqual(readManifest(dir).sessions.map((s) => s.sessionId), ['one'], 'nothing written under another window\'s lock');
      const { rmSync } = await import('node:fs');
      rmSync(join(dir, 'index.lock'));
      await until('the manifest is written once the lock is let go', () => readManifest(dir).sessions.length === 2);
    });

    test('two Node processes index into one folder at once: every session of both is kept and found', async () => {
      const dir = join(tempDir('acp-search-processes-'), 'index');
      mkdirSync(dir, { recursive: true });
      const count = 15;
      const other = child({ mode: 'window', dir, prefix: 'child', count });
      const here = await opened(dir);
      for (let i = 0; i < count; i++) {
        await here.indexRecords(meta(`parent${i}`), [{ where: 'you', index: 0, text: `shared parentword${i}` }]);
        if (i % 2 === 0) await here.flush();
      }
      await here.flush();
      assert.deepEqual(await other, { done: count });
      const expected = [...Array.from({ length: count }, (_, i) => `child${i}`), ...Array.from({ length: count }, (_, i) => `parent${i}`)].sort();
      assert.deepEqual(ids(await find(here, 'shared')), expected, 'the running window finds what the other process indexed');
      const restarted = await opened(dir);
      assert.deepEqual(ids(await find(restarted, 'shared')), expected);
      assert.equal(readdirSync(dir).filter((n) => n.endsWith('.bin')).length, 2 * count, 'no file left over, none missing');
    });
  });

  describe('Search index: a full disk', () => {
    test('on a full disk (a real 256 KiB tmpfs) a write fails as "disk full", said once, and leaves no temp file behind', { skip: process.platform !== 'linux' && 'needs a Linux tmpfs' }, async () => {
      const dir = join(tempDir('acp-search-full-'), 'index');
      mkdirSync(dir, { recursive: true });
      // Its own user and mount namespace: no privileges needed, the mount leaves with the process.
      const script = 'mount -t tmpfs -o size=256k tmpfs "$0" && exec "$@"';
      const result = (await child({ mode: 'full', dir }, ['unshare', '-rm', 'sh', '-c', script, dir])) as { indexed: number; errors: string[]; warnings: string[]; left: string[]; found: number; diskFull: boolean };
      assert.ok(result.indexed >= 1 && result.indexed < 12, `some sessions fit (${result.indexed})`);
      assert.ok(result.errors.length > 0 && result.errors.every((e) => e.startsWith('ENOSPC: the disk holding the search index')), result.errors.join('\n'));
      assert.equal(result.warnings.length, 1, result.warnings.join('\n'));
      assert.match(result.warnings[0], /is full; sessions are not indexed until there is room/);
      assert.deepEqual(result.left, [], 'no *.tmp file is left');
      assert.equal(result.found, 1, 'what was indexed before stays found');
    });
  });

  describe('Search indexer: what the agent deleted leaves the index', () => {
    // As a replay makes them: the timeline reducer over a real update.
    const entities = (text: string): readonly Entity[] => {
      const timeline = new Timeline();
      timeline.apply({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text } } as Parameters<Timeline['apply']>[0]);
      return timeline.entities;
    };

    async function setup(records: ReturnType<typeof record>[], scopeFolder: string) {
      const storeDir = await store(records, 'acp-search-indexer-');
      const { registry, model } = setupModel(storeDir);
      model.setScope({ kind: 'folders', folders: [scopeFolder] });
      const dir = join(tempDir('acp-search-indexer-index-'), 'index');
      const index = await opened(dir);
      const { log, warnings } = logOf();
      const indexer = new SearchIndexer({ index, agents: registry, model, isOpen: () => false, log, timelines: () => replayTimelines });
      return { storeDir, registry, model, index, indexer, warnings };
    }

    test('a session deleted outside the Sessions view\'s scope leaves the index with the next survey', async () => {
      const inScope = tempDir('acp-search-in-');
      const outside = tempDir('acp-search-out-');
      const { storeDir, model, index, indexer, warnings } = await setup([record('here', inScope, 1), record('there', outside, 2)], inScope);
      // Indexed while the Sessions view showed every folder.
      model.setScope({ kind: 'all' });
      const first = await indexer.survey('ref');
      assert.equal(first.missing.length, 2, 'every folder is in the scope');
      assert.equal(await indexer.indexSessions('ref', [...first.missing], { isCancelled: () => false }), 2, warnings.join('\n'));
      assert.deepEqual(ids(await find(index, 'hello')), ['here', 'there']);
      model.setScope({ kind: 'folders', folders: [inScope] });
      const scoped = await indexer.survey('ref');
      assert.deepEqual([scoped.listed, scoped.indexed, scoped.missing.length], [1, 1, 0], 'only the scope\'s folder is counted');
      assert.ok(await markSessionDeleted(storeDir, 'there'));
      const second = await indexer.survey('ref');
      assert.deepEqual(ids(await find(index, 'hello')), ['here'], '"there" is no longer found');
      assert.equal(second.indexed, 1);
    });

    test('a session the survey loads is kept in a file while it is indexed, not whole in the heap, and the file goes after', async () => {
      const folder = tempDir('acp-search-in-');
      const { registry, model } = setupModel(await store([record('one', folder, 1), record('two', folder, 2)], 'acp-search-spill-'));
      model.setScope({ kind: 'folders', folders: [folder] });
      const index = await opened(join(tempDir('acp-search-spill-index-'), 'index'));
      const { log, warnings } = logOf();
      const spillDir = join(tempDir('acp-search-spill-dir-'), 'transcripts');
      mkdirSync(spillDir);
      const made: string[] = [];
      const watcher = watch(spillDir, (_event, name) => {
        if (name && name.endsWith('-survey.spill') && !made.includes(name)) made.push(name);
      });
      try {
        const indexer = new SearchIndexer({ index, agents: registry, model, isOpen: () => false, log, spillDir, timelines: () => replayTimelines });
        const found = await indexer.survey('ref');
        assert.equal(await indexer.indexSessions('ref', [...found.missing], { isCancelled: () => false }), 2, warnings.join('\n'));
        assert.deepEqual(ids(await find(index, 'hello')), ['one', 'two'], 'both are found, read back from their files');
        await until('the folder watch told of both files', () => made.length >= 2);
        assert.deepEqual(readdirSync(spillDir), [], 'no file is left behind');
      } finally {
        watcher.close();
      }
    });

    test('a session the agent answers -32002 to on load leaves the index and the coverage', async () => {
      const folder = tempDir('acp-search-in-');
      const { storeDir, index, indexer } = await setup([record('one', folder, 1), record('two', folder, 2)], folder);
      const found = await indexer.survey('ref');
      await index.indexEntities({ agent: 'ref', sessionId: 'two', cwd: folder, archived: false, updatedAt: 'older' }, entities('hello two'));
      assert.ok(await markSessionDeleted(storeDir, 'two'));
      await indexer.indexSessions('ref', [...found.missing], { isCancelled: () => false });
      assert.equal(index.get('ref', 'two'), undefined, '-32002: dropped');
      assert.ok(!indexer.coverage('ref')!.missing.some((s) => s.sessionId === 'two'), 'and no longer counted as missing');
      assert.deepEqual(ids(await find(index, 'hello')), ['one']);
    });

    test('entries of an agent no longer configured leave the index', async () => {
      const folder = tempDir('acp-search-in-');
      const { index, indexer } = await setup([record('one', folder, 1)], folder);
      await index.indexEntities({ agent: 'removed-agent', sessionId: 'old', cwd: folder, archived: false }, entities('hello old'));
      await index.indexEntities({ agent: 'ref', sessionId: 'one', cwd: folder, archived: false }, entities('hello one'));
      assert.deepEqual(ids(await index.search(parseQuery('hello'), { agents: ['ref'] })), ['one'], 'a result is shown only for a configured agent');
      indexer.pruneAgents(['ref']);
      assert.equal(index.get('removed-agent', 'old'), undefined);
      assert.deepEqual(ids(await find(index, 'hello')), ['one']);
    });

    test('a replayed session counts as indexed only once its text is written: a replay that fails leaves it missing', async () => {
      const folder = tempDir('acp-search-in-');
      const { index, indexer, warnings } = await setup([record('one', folder, 1), record('two', folder, 2)], folder);
      const coverage = await indexer.survey('ref');
      assert.equal(coverage.missing.length, 2);
      const session = coverage.missing.find((s) => s.sessionId === 'one')!;
      async function* failing(): AsyncGenerator<readonly Entity[]> {
        yield entities('hello one');
        throw new Error('the tab was closed');
      }
      const run = indexer.replayed('ref', { ...session, archived: false }, failing());
      assert.equal(indexer.coverage('ref')!.indexed, 0, 'not counted before its indexing finished');
      await run;
      assert.equal(index.get('ref', 'one'), undefined);
      assert.equal(indexer.coverage('ref')!.indexed, 0, 'not counted after it failed');
      assert.ok(indexer.coverage('ref')!.missing.some((s) => s.sessionId === 'one'), 'still missing');
      assert.match(warnings.join('\n'), /could not index one: the tab was closed/);
      async function* whole(): AsyncGenerator<readonly Entity[]> {
        yield entities('hello one');
      }
      await indexer.replayed('ref', { ...session, archived: false }, whole());
      assert.equal(indexer.coverage('ref')!.indexed, 1, 'counted once written');
    });
  });
}
