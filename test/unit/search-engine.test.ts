// Search Sessions' engine: queries over the text of real replays (the reference agent as a child
// process, our client, the timeline reducer), indexed into a real folder, read back after a
// "restart" (a second SearchIndex on the same folder). One test per rule of issue 23's query
// language and of the index's life.
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after, describe, test } from 'node:test';
import { AcpClient } from '../../src/acp/client';
import { CONTEXT_BEFORE, lineAround } from '../../src/search/match';
import { parseQuery } from '../../src/search/query';
import { BLOCK_CHARS, FORMAT_VERSION, SearchIndex, type SearchResult } from '../../src/search/searchIndex';
import { fold } from '../../src/search/text';
import { Timeline } from '../../src/transcript/timeline';
import { SEARCH_NEEDLES, seedSearch } from '../agent/searchSeed';
import type { StoredSession } from '../agent/store';
import { CapturingLog, CLIENT_INFO, referenceAgent, tempDir } from './acp-helpers';

const COUNT = 200;
/** The index's worker as built for the tests (the extension's is dist/searchWorker.js). */
const WORKER = fileURLToPath(new URL('../../src/search/indexWorker.mjs', import.meta.url));
let store: string;
let indexDir: string;
let sessions: StoredSession[];
let client: AcpClient;
let index: SearchIndex;
const cleanups: (() => void | Promise<void>)[] = [];
const warnings: string[] = [];
const indexLog = { warn: (m: string) => warnings.push(m), info: () => undefined };
const scope = { after: (fn: () => void) => cleanups.push(fn) };

async function replayInto(target: SearchIndex, session: StoredSession): Promise<void> {
  const timeline = new Timeline();
  await client.loadSession(session.sessionId, session.cwd, (u) => timeline.apply(u));
  await target.indexEntities({ agent: 'reference', sessionId: session.sessionId, cwd: session.cwd, title: session.title, updatedAt: session.updatedAt, archived: session.archived }, timeline.entities);
}

const ids = (result: SearchResult) => result.sessions.map((s) => s.session.sessionId);
const search = (query: string, target = index, limit = 500) => target.search(parseQuery(query), { limit });

before(async () => {
  store = tempDir(scope, 'search-store-');
  indexDir = join(tempDir(scope, 'search-index-'), 'index');
  const folders = [tempDir(scope, 'search-a-'), tempDir(scope, 'search-b-')];
  sessions = await seedSearch(store, folders, COUNT, Date.UTC(2026, 11, 1));
  client = await AcpClient.start(referenceAgent(store), { clientInfo: CLIENT_INFO, log: new CapturingLog() });
  // Encoded in the worker; the other indexes below encode on this thread.
  index = await SearchIndex.open(indexDir, { worker: WORKER, log: indexLog });
  for (const session of sessions) await replayInto(index, session);
  await index.flush();
});

after(async () => {
  await index?.dispose();
  await client?.dispose();
  for (const c of cleanups.reverse()) await c();
});

describe('Search Sessions: the query language', () => {
  test('a phrase said only in a compaction summary finds that session alone, with a line of context and the words highlighted', async () => {
    const result = await search(`"${SEARCH_NEEDLES.compactionPhrase}"`);
    assert.deepEqual(ids(result), [SEARCH_NEEDLES.compactionSession]);
    const [match] = result.sessions[0].matches;
    assert.equal(match.where, 'compactions');
    const [start, end] = match.highlights[0];
    assert.equal(match.line.slice(start, end), SEARCH_NEEDLES.compactionPhrase);
    assert.equal(match.text, SEARCH_NEEDLES.compactionPhrase);
  });

  test('the context before a match is a few words, from a word\'s start, so the match stays in view in a narrow sidebar', async () => {
    const result = await search(SEARCH_NEEDLES.compactionPhrase.split(' ')[0]);
    const [match] = result.sessions[0].matches;
    const [start] = match.highlights[0];
    assert.equal(match.line.slice(0, start), '…so far: the ');
    // A word is not cut, spaces are dropped; CJK, written without spaces, is cut anywhere.
    const text = 'Please look at the configuration before the pangolin arrives';
    const at = text.indexOf('pangolin');
    const [from] = lineAround(text, at, at + 8, 0, text.length);
    assert.equal(text.slice(from, at), 'before the ');
    assert.ok(at - from <= CONTEXT_BEFORE);
    const cjk = '東京都の天気予報を確認してから、デプロイの手順を整理しました。';
    const cjkAt = cjk.indexOf('手順');
    assert.equal(cjk.slice(lineAround(cjk, cjkAt, cjkAt + 2, 0, cjk.length)[0], cjkAt), cjk.slice(cjkAt - CONTEXT_BEFORE, cjkAt));
  });

  test('words match in any order, each somewhere in the session', async () => {
    const forward = ids(await search('quokka migration'));
    const backward = ids(await search('migration quokka'));
    assert.deepEqual(forward, [SEARCH_NEEDLES.compactionSession]);
    assert.deepEqual(backward, forward);
  });

  test('a phrase needs its words together and in order', async () => {
    assert.deepEqual(ids(await search('"ledger quokka"')), []);
  });

  test('a word matches whole words only; a prefix with * matches the words it starts', async () => {
    assert.deepEqual(ids(await search('quokk')), []);
    assert.deepEqual(ids(await search('quokk*')), [SEARCH_NEEDLES.compactionSession]);
    assert.equal((await search('refact*')).sessions.length, (await search('refactor')).sessions.length);
  });

  test('case and accents do not matter, either way', async () => {
    assert.deepEqual(ids(await search('ZEPHYR BOOTLOADER')), [SEARCH_NEEDLES.archivedSession]);
    const accented = ids(await search('résumé'));
    assert.ok(accented.length > 0);
    assert.deepEqual(ids(await search('resume')), accented);
    assert.deepEqual(ids(await search('RESUME')), accented);
    assert.equal(fold('Straße Ünïcödé'), 'straße unicode');
  });

  test('CJK text written without spaces is found by a word inside it', async () => {
    const result = await search(SEARCH_NEEDLES.cjkQuery);
    assert.deepEqual(ids(result), [SEARCH_NEEDLES.cjkSession]);
    const match = result.sessions[0].matches[0];
    assert.equal(match.line.slice(...match.highlights[0]), SEARCH_NEEDLES.cjkQuery);
    assert.deepEqual(ids(await search('デプロイ')), [SEARCH_NEEDLES.cjkSession]);
    assert.deepEqual(ids(await search('予')), [SEARCH_NEEDLES.cjkSession]);
  });

  test('filters: where it was said (you, agent, thoughts, tools, compactions)', async () => {
    assert.deepEqual(ids(await search(`in:compactions "${SEARCH_NEEDLES.compactionPhrase}"`)), [SEARCH_NEEDLES.compactionSession]);
    assert.deepEqual(ids(await search(`in:you "${SEARCH_NEEDLES.compactionPhrase}"`)), []);
    assert.deepEqual(ids(await search(`in:you zephyr`)), [SEARCH_NEEDLES.archivedSession]);
    assert.deepEqual(ids(await search(`in:agent zephyr`)), []);
    const thoughts = await search('in:thoughts thinking');
    assert.equal(thoughts.sessions.length, COUNT);
    assert.ok(thoughts.sessions.every((s) => s.matches.every((m) => m.where === 'thoughts')));
    const tools = await search('in:tools value137');
    assert.deepEqual(ids(tools), ['search_0137']);
  });

  test('filters: Active / Archived, agent, folder, age', async () => {
    assert.deepEqual(ids(await search('is:active zephyr')), []);
    assert.deepEqual(ids(await search('is:archived zephyr')), [SEARCH_NEEDLES.archivedSession]);
    assert.equal((await search('is:archived thinking')).sessions.length, sessions.filter((s) => s.archived).length);
    assert.deepEqual(ids(await search('agent:other zephyr')), []);
    assert.deepEqual(ids(await search('agent:Reference zephyr')), [SEARCH_NEEDLES.archivedSession]);
    const folder = sessions[0].cwd.split('/').pop()!;
    assert.equal((await search(`folder:${folder} thinking`)).sessions.length, COUNT / 2);
    const now = Date.UTC(2026, 11, 1);
    assert.equal((await index.search(parseQuery('newer:1d thinking'), { limit: 500, now })).sessions.length, 24, 'up to 24 h old, 24 h included');
    assert.equal((await index.search(parseQuery('older:1d thinking'), { limit: 500, now })).sessions.length, COUNT - 23);
  });

  test('results come newest first, a page at a time', async () => {
    const page = await search('thinking', index, 20);
    assert.equal(page.sessions.length, 20);
    assert.equal(page.complete, false);
    assert.deepEqual(ids(page), sessions.slice(0, 20).map((s) => s.sessionId));
  });
});

describe('Search Sessions: the index', () => {
  test('survives a restart: a second index on the same folder answers the same', async () => {
    const reopened = await SearchIndex.open(indexDir);
    assert.equal(reopened.sessions().length, COUNT);
    assert.deepEqual(ids(await search(SEARCH_NEEDLES.cjkQuery, reopened)), [SEARCH_NEEDLES.cjkSession]);
  });

  test('a session whose text changed is indexed anew: the old text leaves', async () => {
    const dir = join(tempDir(scope, 'search-reindex-'), 'index');
    const own = await SearchIndex.open(dir);
    const meta = { agent: 'a', sessionId: 's1', cwd: '/x', archived: false, updatedAt: '2026-01-01T00:00:00Z' };
    await own.indexRecords(meta, [{ where: 'you', index: 0, text: 'first words' }]);
    await own.indexRecords({ ...meta, updatedAt: '2026-01-02T00:00:00Z' }, [{ where: 'you', index: 0, text: 'second words' }]);
    assert.deepEqual(ids(await search('first', own)), []);
    assert.deepEqual(ids(await search('second', own)), ['s1']);
    await own.flush();
    assert.equal(readdirSync(dir).filter((f) => f.endsWith('.bin')).length, 1, 'the old file is removed');
  });

  test('a deleted session leaves the index; archive changes only its filter', async () => {
    const dir = join(tempDir(scope, 'search-remove-'), 'index');
    const own = await SearchIndex.open(dir);
    await own.indexRecords({ agent: 'a', sessionId: 's1', cwd: '/x', archived: false }, [{ where: 'agent', index: 0, text: 'kept words' }]);
    own.updateMeta('a', 's1', { archived: true });
    assert.deepEqual(ids(await search('is:archived kept', own)), ['s1']);
    await own.remove('a', 's1');
    assert.deepEqual(ids(await search('kept', own)), []);
    await own.flush();
    assert.equal(readdirSync(dir).filter((f) => f.endsWith('.bin')).length, 0);
  });

  test('an index of another format version is rebuilt from nothing; Clear empties it', async () => {
    const dir = join(tempDir(scope, 'search-version-'), 'index');
    const own = await SearchIndex.open(dir);
    await own.indexRecords({ agent: 'a', sessionId: 's1', cwd: '/x', archived: false }, [{ where: 'agent', index: 0, text: 'old format' }]);
    await own.flush();
    writeFileSync(join(dir, 'index.json'), JSON.stringify({ version: FORMAT_VERSION + 1, sessions: [] }));
    const reopened = await SearchIndex.open(dir);
    assert.equal(reopened.sessions().length, 0);
    // What is left is each open index's record of itself (src/search/windows.ts).
    assert.deepEqual(readdirSync(dir).filter((name) => !/^owner-[0-9a-f]{8}\.json$/.test(name)), []);
    await reopened.indexRecords({ agent: 'a', sessionId: 's2', cwd: '/x', archived: false }, [{ where: 'agent', index: 0, text: 'new format' }]);
    await reopened.clear();
    assert.equal(reopened.sessions().length, 0);
    assert.deepEqual(ids(await search('format', reopened)), []);
  });

  test('text longer than a block is found wherever it stands, its entity named', async () => {
    const dir = join(tempDir(scope, 'search-long-'), 'index');
    const own = await SearchIndex.open(dir);
    const filler = 'lorem ipsum dolor sit amet '.repeat(10_000);
    await own.indexRecords({ agent: 'a', sessionId: 'long', cwd: '/x', archived: false }, [
      { where: 'agent', index: 0, text: filler },
      { where: 'compactions', index: 7, text: `${filler} the needle sits here ${filler}` },
    ]);
    const result = await search('"needle sits"', own);
    assert.deepEqual(ids(result), ['long']);
    assert.equal(result.sessions[0].matches[0].index, 7);
    assert.equal(result.sessions[0].matches[0].where, 'compactions');
  });
});

describe('Search Sessions: where the index is encoded', () => {
  test('the replays were encoded in the worker (no fallback), and read back alike on this thread', async () => {
    assert.deepEqual(warnings, []);
    const reopened = await SearchIndex.open(indexDir);
    assert.deepEqual(ids(await search(`"${SEARCH_NEEDLES.compactionPhrase}"`, reopened)), [SEARCH_NEEDLES.compactionSession]);
  });

  test('a replay fed in batches (as a transcript\'s file is read back) indexes what the whole replay does; a batch that fails keeps what was indexed', async () => {
    const dir = join(tempDir(scope, 'search-batches-'), 'index');
    const own = await SearchIndex.open(dir, { worker: WORKER });
    const session = sessions.find((s) => s.sessionId === SEARCH_NEEDLES.compactionSession)!;
    const timeline = new Timeline();
    await client.loadSession(session.sessionId, session.cwd, (u) => timeline.apply(u));
    const meta = { agent: 'reference', sessionId: session.sessionId, cwd: session.cwd, title: session.title, updatedAt: session.updatedAt, archived: session.archived };
    async function* batches(size: number, failAfter = Infinity) {
      for (let at = 0; at < timeline.entities.length; at += size) {
        if (at >= failAfter) throw new Error('the tab was closed');
        yield timeline.entities.slice(at, at + size);
      }
    }
    await own.indexBatches(meta, batches(3));
    const whole = await search(`"${SEARCH_NEEDLES.compactionPhrase}"`, index);
    const fed = await search(`"${SEARCH_NEEDLES.compactionPhrase}"`, own);
    assert.deepEqual(ids(fed), [SEARCH_NEEDLES.compactionSession]);
    assert.deepEqual(fed.sessions[0].matches.map((m) => [m.index, m.where]), whole.sessions[0].matches.map((m) => [m.index, m.where]), 'the same entities named');
    await assert.rejects(own.indexBatches({ ...meta, title: 'changed' }, batches(3, 3)), /tab was closed/);
    assert.equal(own.get('reference', session.sessionId)?.title, session.title, 'the failed replay changed nothing');
    assert.deepEqual(ids(await search(`"${SEARCH_NEEDLES.compactionPhrase}"`, own)), [SEARCH_NEEDLES.compactionSession]);
    await own.dispose();
  });

  test('a worker that cannot start: sessions are indexed on this thread, and the log says why', async () => {
    const dir = join(tempDir(scope, 'search-no-worker-'), 'index');
    const own: string[] = [];
    const fallback = await SearchIndex.open(dir, { worker: join(dir, 'missing-worker.mjs'), log: { warn: (m) => own.push(m), info: () => undefined } });
    await replayInto(fallback, sessions.find((s) => s.sessionId === SEARCH_NEEDLES.cjkSession)!);
    assert.deepEqual(ids(await search(SEARCH_NEEDLES.cjkQuery, fallback)), [SEARCH_NEEDLES.cjkSession]);
    assert.equal(own.length, 1);
    assert.match(own[0], /worker stopped/);
    await fallback.dispose();
  });
});

describe('Search Sessions: text split over blocks', () => {
  const phrase = 'quokka ledger migration';
  const filler = (chars: number) => 'lorem ipsum dolor sit amet '.repeat(Math.ceil(chars / 27)).slice(0, chars);

  test('a phrase that spans the boundary between two blocks is found, once, in its entity', async () => {
    const dir = join(tempDir(scope, 'search-boundary-'), 'index');
    const own = await SearchIndex.open(dir);
    // One session per position: the phrase starts 1 to 22 characters before the block's end (so
    // some of its words are on each side of BLOCK_CHARS), or 600 before it.
    const at = [...Array.from({ length: phrase.length - 1 }, (_, i) => BLOCK_CHARS - 1 - i), BLOCK_CHARS - 600];
    for (const start of at) {
      await own.indexRecords({ agent: 'a', sessionId: `at${start}`, cwd: '/x', archived: false }, [
        { where: 'tools', index: 3, text: `${filler(start - 1)} ${phrase} ${filler(40_000)}` },
      ]);
    }
    // A phrase of 60 words, from 300 characters before the block's end.
    const long = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    await own.indexRecords({ agent: 'a', sessionId: 'long', cwd: '/x', archived: false }, [
      { where: 'agent', index: 5, text: `${filler(BLOCK_CHARS - 301)} ${long} ${filler(40_000)}` },
    ]);
    const result = await search(`"${phrase}"`, own);
    assert.deepEqual(ids(result).sort(), at.map((start) => `at${start}`).sort());
    for (const session of result.sessions) {
      assert.equal(session.matches.length, 1, `${session.session.sessionId}: one match, not one per block`);
      const [match] = session.matches;
      assert.equal(match.index, 3);
      assert.equal(match.where, 'tools');
      assert.equal(match.text, phrase);
      assert.equal(match.line.slice(...match.highlights[0]), phrase);
    }
    const longResult = await search(`"${long}"`, own);
    assert.deepEqual(ids(longResult), ['long']);
    assert.equal(longResult.sessions[0].matches[0].text, long);
  });

  test('text without spaces (Japanese) is split inside, and a word across the split is still found', async () => {
    const dir = join(tempDir(scope, 'search-cjk-boundary-'), 'index');
    const own = await SearchIndex.open(dir);
    const kana = (chars: number) => 'あいうえおかきくけこ'.repeat(Math.ceil(chars / 10)).slice(0, chars);
    const word = '天気予報';
    const at = [1, 2, 3].map((d) => BLOCK_CHARS - d);
    for (const start of at) {
      await own.indexRecords({ agent: 'a', sessionId: `cjk${start}`, cwd: '/x', archived: false }, [
        { where: 'agent', index: 2, text: `${kana(start)}${word}${kana(40_000)}` },
      ]);
    }
    const result = await search(word, own);
    assert.deepEqual(ids(result).sort(), at.map((start) => `cjk${start}`).sort());
    for (const session of result.sessions) assert.equal(session.matches.length, 1, session.session.sessionId);
  });

  test('a phrase does not run from the end of one entity into the next', async () => {
    const dir = join(tempDir(scope, 'search-records-'), 'index');
    const own = await SearchIndex.open(dir);
    await own.indexRecords({ agent: 'a', sessionId: 's1', cwd: '/x', archived: false }, [
      { where: 'you', index: 0, text: 'the ledger' },
      { where: 'agent', index: 1, text: 'quokka said so' },
    ]);
    assert.deepEqual(ids(await search('"ledger quokka"', own)), []);
    assert.deepEqual(ids(await search('ledger quokka', own)), ['s1']);
  });
});
