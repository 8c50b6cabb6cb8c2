// The webview's channel to the host (src/webview/channel.ts): the state a reload finds, saved
// patch by patch, and only well-formed messages from the host.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HostToWebview, WebviewState, WebviewToHost } from '../../src/transcript/protocol';
import { HostChannel, type VsCodeApi } from '../../src/webview/channel';

/** What VS Code keeps for a webview: its posted messages and its state, as a reload sees them. */
class Api implements VsCodeApi {
  posted: WebviewToHost[] = [];
  /** How many times the state was set (each is a message to the workbench). */
  sets = 0;
  constructor(public saved?: WebviewState) {}
  postMessage(message: WebviewToHost): void {
    this.posted.push(message);
  }
  getState(): WebviewState | undefined {
    return this.saved && structuredClone(this.saved);
  }
  setState(state: WebviewState): void {
    this.sets++;
    this.saved = structuredClone(state);
  }
}

test('the state saved before a reload is what the next page starts from', () => {
  const api = new Api();
  const first = new HostChannel(api);
  assert.equal(first.state, undefined);
  first.saveState({ agentName: 'a', sessionId: 's', cwd: '/w', title: 't' });
  first.saveState({ anchor: { key: 'k', offset: 40 } });
  first.saveState({ open: { x: true } });
  const reloaded = new HostChannel(api);
  assert.deepEqual(reloaded.state, { agentName: 'a', sessionId: 's', cwd: '/w', title: 't', anchor: { key: 'k', offset: 40 }, open: { x: true } });
});

test('a patch that changes nothing is not sent again; one that changes anything is', () => {
  const api = new Api({ agentName: 'a', sessionId: 's', cwd: '/w', title: 't', anchor: { key: 'k', offset: 40 } });
  const channel = new HostChannel(api);
  // The header's facts, as every header of a replay repeats them.
  for (let i = 0; i < 10; i++) channel.saveState({ agentName: 'a', sessionId: 's', cwd: '/w', title: 't', updatedAt: undefined });
  assert.equal(api.sets, 0);
  channel.saveState({ title: 'renamed' });
  channel.saveState({ anchor: { key: 'k', offset: 40 } });
  assert.equal(api.sets, 2);
  assert.deepEqual(api.saved, { agentName: 'a', sessionId: 's', cwd: '/w', title: 'renamed', anchor: { key: 'k', offset: 40 } });
});

test('a patch saved before any header still makes a whole state', () => {
  const api = new Api();
  new HostChannel(api).saveState({ compactionsOpen: true });
  assert.deepEqual(api.saved, { agentName: '', sessionId: '', cwd: '', title: '', compactionsOpen: true });
});

test('messages go to the host as they are; from the host, only objects with a type get through', () => {
  const api = new Api();
  const channel = new HostChannel(api);
  channel.post({ type: 'compactionRead' });
  assert.deepEqual(api.posted, [{ type: 'compactionRead' }]);
  const target = new EventTarget();
  const heard: HostToWebview[] = [];
  channel.listen(target as unknown as Window, (m) => heard.push(m));
  for (const data of [null, 'snapshot', { type: 3 }, { no: 'type' }, { type: 'openFind' }]) target.dispatchEvent(new MessageEvent('message', { data }));
  assert.deepEqual(heard, [{ type: 'openFind' }]);
});
