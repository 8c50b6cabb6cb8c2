// The sessions model's events, against the reference agent as a real process: onDidRename and
// onDidDelete fire for every way the model learns the fact (a write's outcome, a replayed
// `session_info_update`, a re-list, the agent's live list, a -32002), and only when the fact is
// news: a title the model already held fires nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SessionsModel } from '../../src/sessions/sessionsModel';
import { markSessionDeleted, updateSession, writeSession } from '../agent/store';
import { cleanUpAfterEach, onCleanUp, record, setupModel, store, until } from './sessionsFixture';

cleanUpAfterEach();

const P = '/projects/p';

/** Every rename and delete event the model fires, in order. */
function recordEvents(model: SessionsModel) {
  const renames: { agent: string; sessionId: string; title: string | undefined }[] = [];
  const deletes: { agent: string; sessionId: string }[] = [];
  const subscriptions = [model.onDidRename((e) => renames.push(e)), model.onDidDelete((e) => deletes.push(e))];
  onCleanUp(() => subscriptions.forEach((s) => s.dispose()));
  return { renames, deletes };
}

describe('sessions model: onDidRename', () => {
  test('a done rename fires once with the title the agent stored', async () => {
    const { model } = setupModel(await store([record('s1', P, 1), record('s2', P, 2)]));
    const events = recordEvents(model);
    await model.list('ref', 'active', P).load();
    const outcome = await model.rename('ref', 's1', '  Fix the parser  ');
    assert.equal(outcome.status, 'done');
    assert.deepEqual(events.renames, [{ agent: 'ref', sessionId: 's1', title: 'Fix the parser' }], 'the trimmed title the agent answered');
    await model.lastRevalidation;
    assert.equal(events.renames.length, 1, 'the re-list after the rename brings the title the model holds: no second event');
  });

  test('a done rename fires even when no list holds the session', async () => {
    const { model } = setupModel(await store([record('s1', P, 1)]));
    const events = recordEvents(model);
    await model.rename('ref', 's1', 'Renamed unlisted');
    assert.deepEqual(events.renames, [{ agent: 'ref', sessionId: 's1', title: 'Renamed unlisted' }]);
  });

  test('a failed rename fires nothing', async () => {
    const { model } = setupModel(await store([record('s1', P, 1)]), ['--fail', 'session/set_title=-32603']);
    const events = recordEvents(model);
    await model.list('ref', 'active', P).load();
    assert.equal((await model.rename('ref', 's1', 'x')).status, 'failed');
    assert.deepEqual(events.renames, []);
  });

  test('a session_info_update with a new title (here in a replay) fires with that title', async () => {
    const replayed = [
      { sessionUpdate: 'session_info_update' as const, title: 'Title from the replay' },
      { sessionUpdate: 'user_message_chunk' as const, content: { type: 'text' as const, text: 'hello' } },
    ];
    const { model, registry } = setupModel(await store([record('s1', P, 1, { updates: replayed })]));
    const events = recordEvents(model);
    const active = model.list('ref', 'active', P);
    await active.load();
    assert.deepEqual(events.renames, []);
    const client = await registry.getClient('ref');
    await client.loadSession('s1', P, () => undefined);
    await until('the replayed title is shown', () => active.sessions[0].title === 'Title from the replay');
    assert.deepEqual(events.renames, [{ agent: 'ref', sessionId: 's1', title: 'Title from the replay' }]);
  });

  test('a session_info_update that clears the title (null) fires with undefined; the same title again fires nothing', async () => {
    const replayed = [
      { sessionUpdate: 'session_info_update' as const, title: 'Session s2' },
      { sessionUpdate: 'session_info_update' as const, title: null },
      { sessionUpdate: 'user_message_chunk' as const, content: { type: 'text' as const, text: 'hello' } },
    ];
    const { model, registry } = setupModel(await store([record('s2', P, 1, { updates: replayed })]));
    const events = recordEvents(model);
    const active = model.list('ref', 'active', P);
    await active.load();
    const client = await registry.getClient('ref');
    await client.loadSession('s2', P, () => undefined);
    await until('the title is cleared', () => active.sessions[0].title == null);
    assert.deepEqual(events.renames, [{ agent: 'ref', sessionId: 's2', title: undefined }], 'only the change, not the title the list already showed');
  });

  test('a re-list that brings another title (the store changed behind the model) fires with it', async () => {
    const dir = await store([record('s1', P, 1), record('s2', P, 2)]);
    const { model } = setupModel(dir);
    const events = recordEvents(model);
    const active = model.list('ref', 'active', P);
    await active.load();
    await updateSession(dir, 's2', (r) => ({ ...r, title: 'Retitled in the store' }));
    assert.deepEqual(events.renames, [], 'nothing before the re-list (no live list here)');
    await model.refresh('ref');
    assert.equal(active.sessions.find((s) => s.sessionId === 's2')?.title, 'Retitled in the store');
    assert.deepEqual(events.renames, [{ agent: 'ref', sessionId: 's2', title: 'Retitled in the store' }]);
    await model.refresh('ref');
    assert.equal(events.renames.length, 1, 'a re-list of the same titles fires nothing');
  });

  test('the live list retitling a session fires with the new title', async () => {
    const dir = await store([record('s1', P, 1), record('s2', P, 2)]);
    const { model } = setupModel(dir, ['--air-index']);
    const events = recordEvents(model);
    await model.list('ref', 'active', P).load();
    await model.lastLiveSubscription;
    await updateSession(dir, 's1', (r) => ({ ...r, title: 'Retitled elsewhere' }));
    await until('the live list retitled s1', () => events.renames.length > 0);
    assert.deepEqual(events.renames, [{ agent: 'ref', sessionId: 's1', title: 'Retitled elsewhere' }]);
  });
});

describe('sessions model: onDidDelete', () => {
  test('a delete here fires for each session deleted, listed or not', async () => {
    const { model } = setupModel(await store([record('s1', P, 1), record('s2', P, 2), record('s3', P, 3)]));
    const events = recordEvents(model);
    const active = model.list('ref', 'active', P);
    await active.load();
    const outcomes = await model.delete('ref', ['s1', 's3']);
    assert.deepEqual(outcomes.map((o) => o.status), ['done', 'done']);
    assert.deepEqual(events.deletes, [{ agent: 'ref', sessionId: 's1', how: 'deleted' }, { agent: 'ref', sessionId: 's3', how: 'deleted' }]);
    // A session no list holds (the Archived section was never opened) is deleted all the same.
    const unlisted = setupModel(await store([record('z1', P, 1, { archived: true })]));
    const unlistedEvents = recordEvents(unlisted.model);
    await unlisted.model.delete('ref', ['z1']);
    assert.deepEqual(unlistedEvents.deletes, [{ agent: 'ref', sessionId: 'z1', how: 'deleted' }]);
  });

  test('a delete answered -32002 fires: the session is gone', async () => {
    const { model } = setupModel(await store([record('s1', P, 1)]), ['--fail', 'session/delete=-32002']);
    const events = recordEvents(model);
    const active = model.list('ref', 'active', P);
    await active.load();
    const [outcome] = await model.delete('ref', ['s1']);
    assert.equal(outcome.status, 'gone');
    // The user asked for the delete: it counts as deleted here (a kept copy goes too).
    assert.deepEqual(events.deletes, [{ agent: 'ref', sessionId: 's1', how: 'deleted' }]);
    assert.deepEqual(active.sessions, []);
  });

  test('another write answered -32002 (an archive of a session deleted behind the model) fires', async () => {
    const dir = await store([record('s1', P, 1), record('s2', P, 2)]);
    const { model } = setupModel(dir);
    const events = recordEvents(model);
    await model.list('ref', 'active', P).load();
    await writeSession(dir, record('s2', P, 2, { deleted: true }));
    const [outcome] = await model.archive('ref', ['s2']);
    assert.equal(outcome.status, 'gone');
    assert.deepEqual(events.deletes, [{ agent: 'ref', sessionId: 's2', how: 'gone' }]);
  });

  test('sessionNotFound (a -32002 outside the model\'s writes, e.g. a transcript\'s load) fires', async () => {
    const { model } = setupModel(await store([record('s1', P, 1)]));
    const events = recordEvents(model);
    const active = model.list('ref', 'active', P);
    await active.load();
    model.sessionNotFound('ref', 's1');
    assert.deepEqual(events.deletes, [{ agent: 'ref', sessionId: 's1', how: 'gone' }]);
    assert.deepEqual(active.sessions, []);
  });

  test('the live list removing a session fires', async () => {
    const dir = await store([record('s1', P, 1), record('s2', P, 2)]);
    const { model } = setupModel(dir, ['--air-index']);
    const events = recordEvents(model);
    await model.list('ref', 'active', P).load();
    await model.lastLiveSubscription;
    await markSessionDeleted(dir, 's2');
    await until('the live list removed s2', () => events.deletes.length > 0);
    assert.deepEqual(events.deletes, [{ agent: 'ref', sessionId: 's2', how: 'gone' }]);
  });
});
