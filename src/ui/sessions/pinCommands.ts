// Pin and Unpin: pinned sessions come first in their agent's Active section (the order is the
// tree's: src/ui/sessions/treeNodes/pinnedParts.ts), so Pin refuses an archived session, while
// Unpin takes any pinned one (archived after it was pinned, too). A pin is kept in the global
// storage (src/sessions/pins.ts), dropped when the sessions model says the session was deleted,
// and shown as gone when the agent no longer lists it.
import * as vscode from 'vscode';
import { groupBy, sessionLabel } from '../../sessions/format';
import type { Pins } from '../../sessions/pins';
import type { CommandContext } from './commandContext';
import type { Invocation } from './commandTargets';
import { GonePinNode } from './treeNodes/gonePinNode';

export function registerPins(deps: CommandContext, pins: Pins): vscode.Disposable[] {
  const { model } = deps;
  const resolve = async (values: unknown[], nothingDone: string) => {
    const invocation: Invocation = values.length > 0 ? { via: 'args', args: values } : { via: 'key' };
    return deps.targets.resolve(invocation, 'many', nothingDone);
  };
  return [
    vscode.commands.registerCommand('acpSessions.pin', async (...values: unknown[]) => {
      const targets = await resolve(values, vscode.l10n.t('Nothing was pinned'));
      // Pins order only the Active section: an archived session is refused (the menu does not offer it there).
      const archived = targets.filter((t) => t.section === 'archived');
      if (archived.length > 0) {
        void deps.messages.show('info', archived.length === 1
          ? vscode.l10n.t('Not pinned: "{0}" is archived, and pins order only the Active section. Unarchive it first to pin it.', sessionLabel(archived[0].session))
          : vscode.l10n.t('{0} archived sessions were not pinned: pins order only the Active section. Unarchive them first to pin them.', archived.length));
      }
      const active = targets.filter((t) => t.section !== 'archived');
      for (const [agent, refs] of groupBy(active, (t) => t.agent)) await pins.pin(agent, refs.map((r) => r.session));
    }),
    vscode.commands.registerCommand('acpSessions.unpin', async (...values: unknown[]) => {
      const [node] = values;
      if (node instanceof GonePinNode) return pins.unpin(node.pin.agent, [node.pin.sessionId]);
      // From the palette or a key: gone pins in the selection are unpinned too.
      const gone = values.length === 0 ? deps.view.selection().filter((n): n is GonePinNode => n instanceof GonePinNode) : [];
      for (const g of gone) await pins.unpin(g.pin.agent, [g.pin.sessionId]);
      if (gone.length > 0 && deps.view.selection().every((n) => n instanceof GonePinNode)) return;
      const targets = await resolve(values, vscode.l10n.t('Nothing was unpinned'));
      for (const [agent, refs] of groupBy(targets, (t) => t.agent)) await pins.unpin(agent, refs.map((r) => r.session.sessionId));
    }),
    // A session the agent no longer has is unpinned, whoever deleted it: a Delete here, Clean Up,
    // another window (through the agent's live list), or the agent's -32002.
    model.onDidDelete(({ agent, sessionId }) => {
      if (pins.isPinned(agent, sessionId)) void pins.unpin(agent, [sessionId]);
    }),
    // A pinned session's title is remembered as listed, to show it if the session goes.
    model.onDidChange((change) => {
      if (change.list) void pins.remember(change.agent, change.list.sessions);
    }),
  ];
}
