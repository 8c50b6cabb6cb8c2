// What the transcript unit tests share.
import assert from 'node:assert/strict';
import type { Entity } from '../../src/transcript/model';
import type { Change as Patch } from '../../src/transcript/patches';

/** Applies patches the way the webview does, so a test can check they rebuild the host's timeline. */
export function applyPatches(rows: Map<string, Entity>, patches: Patch[]): void {
  for (const p of patches) {
    if (p.op === 'upsert') rows.set(p.entity.key, structuredClone(p.entity));
    else if (p.op === 'remove') rows.delete(p.key);
    else {
      const e = rows.get(p.key);
      assert.ok(e, `append to the row ${p.key}, which exists`);
      const body = 'parts' in e ? e.parts : 'summary' in e ? e.summary : [];
      const last = body[body.length - 1];
      if (last?.type === 'text') last.text += p.text;
      else assert.fail('append to a row without a trailing text part');
    }
  }
}
