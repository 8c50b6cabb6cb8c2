// Links to sessions: Copy Link puts a `vscode://<extension id>/open?agent=…&session=…&cwd=…` URI
// on the clipboard (the window's own scheme, made external with asExternalUri, so it also works
// from a browser or a remote window), and the extension's UriHandler opens such a link's
// transcript in the window that receives it, or says clearly why it cannot.
import * as vscode from 'vscode';
import { messageOf } from '../../acp/errors';
import { sessionLabel } from '../../sessions/format';
import type { CommandContext } from './commandContext';
import type { Invocation } from './commandTargets';
import type { SessionInfo } from '../../acp/types';
import { linkVerdict, type LinkDoubt } from '../../sessions/linkPolicy';
import { plainLine } from '../common/plainText';
import { terminalName } from './resumeTerminal';

export const LINK_PATH = '/open';
/** Longest id, folder or agent name a link may carry. */
const MAX_PARAM = 4096;

export interface SessionLink {
  agent: string;
  sessionId: string;
  cwd: string;
}

/** The link's URI in this window's scheme (before asExternalUri). */
export function sessionLinkUri(extensionId: string, link: SessionLink, scheme = vscode.env.uriScheme): vscode.Uri {
  const query = new URLSearchParams({ agent: link.agent, session: link.sessionId, cwd: link.cwd }).toString();
  return vscode.Uri.from({ scheme, authority: extensionId, path: LINK_PATH, query });
}

/** A link's fields, or undefined when the URI is not a well-formed session link. */
export function parseSessionLink(uri: vscode.Uri): SessionLink | undefined {
  if (uri.path !== LINK_PATH) return undefined;
  const params = new URLSearchParams(uri.query);
  const agent = params.get('agent');
  const sessionId = params.get('session');
  const cwd = params.get('cwd') ?? '';
  if (!agent || !sessionId || agent.length > MAX_PARAM || sessionId.length > MAX_PARAM || cwd.length > MAX_PARAM) return undefined;
  return { agent, sessionId, cwd };
}

export function registerSessionLinks(context: vscode.ExtensionContext, deps: CommandContext): vscode.Disposable[] {
  const extensionId = context.extension.id;
  return [
    vscode.commands.registerCommand('acpSessions.copyLink', async (...values: unknown[]) => {
      const invocation: Invocation = values.length > 0 ? { via: 'args', args: values } : { via: 'key' };
      const [target] = await deps.targets.resolve(invocation, 'one', vscode.l10n.t('Nothing was copied'));
      if (!target) return undefined;
      const uri = sessionLinkUri(extensionId, { agent: target.agent, sessionId: target.session.sessionId, cwd: target.session.cwd });
      // In a browser or a remote window the window's scheme does not reach it: VS Code makes a link that does.
      const external = await vscode.env.asExternalUri(uri);
      // Unencoded: the external link's query is already encoded (encoding it again breaks VS Code's callback).
      const text = external.toString(true);
      await vscode.env.clipboard.writeText(text);
      // The status bar renders `$(icon)`: the title shows as typed.
      vscode.window.setStatusBarMessage(vscode.l10n.t('Copied a link to "{0}"', terminalName(target.session)), 5000);
      return text;
    }),
    vscode.window.registerUriHandler({ handleUri: (uri) => openLink(deps, uri) }),
  ];
}

/**
 * Opens a link's transcript as a click on its row would, or says why not. A link does only what
 * src/sessions/linkPolicy.ts allows at once; anything more (a session no list holds, a folder
 * not open here, a stopped agent, Restricted Mode) is asked about first in a modal that names the
 * agent, the folder and the session as plain text, and Escape leaves everything as it was.
 */
export async function openLink(deps: CommandContext, uri: vscode.Uri): Promise<void> {
  const link = parseSessionLink(uri);
  const { messages } = deps;
  if (!link) {
    void messages.show('warning', vscode.l10n.t('This link does not name an ACP session: {0}', uri.toString().slice(0, 300)));
    return;
  }
  if (!deps.registry.agent(link.agent)) {
    const open = vscode.l10n.t('Open Settings');
    const choice = await messages.show('warning', vscode.l10n.t('The link opens a session of agent "{0}", which is not configured in this window. Open the link in a window that runs that agent, or add it to acpSessions.agents.', link.agent), open);
    if (choice === open) void vscode.commands.executeCommand('acpSessions.openSettings');
    return;
  }
  const known = deps.model.find(link.agent, link.sessionId)?.session;
  const verdict = linkVerdict({
    sessionId: link.sessionId,
    cwd: link.cwd,
    listed: known,
    agentRunning: deps.registry.connectedClient(link.agent) !== undefined,
    trusted: vscode.workspace.isTrusted,
    folders: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
  });
  if (verdict.kind === 'refuse') {
    void messages.show('warning', verdict.why === 'badSessionId'
      ? vscode.l10n.t('Not opened: the link\'s session ID is not a plain token (letters, digits, "_", "-", ".", ":", starting with a letter or digit, at most 200 characters), so it is not passed to agent "{0}".', link.agent)
      : vscode.l10n.t('Not opened: the link names no absolute folder for the session, so agent "{0}" is not asked to load it.', link.agent));
    return;
  }
  const { session } = verdict;
  if (verdict.kind === 'ask' && !(await askFirst(deps, link.agent, session, verdict.doubts))) return;
  const transcripts = deps.transcripts();
  if (!transcripts) return;
  try {
    await transcripts.open(link.agent, session);
  } catch (error) {
    void messages.show('error', vscode.l10n.t('Could not open the linked session "{0}": {1}', sessionLabel(session), messageOf(error)));
    return;
  }
  // A session the tree does not hold may be gone: the agent's answer to the load says so.
  if (known || !transcripts.whenLoaded) return;
  const state = await transcripts.whenLoaded(link.agent, link.sessionId).catch(() => undefined);
  if (state?.problem) {
    void messages.show('warning', vscode.l10n.t('Agent "{0}" could not open the linked session {1}: {2}', link.agent, link.sessionId, state.problem.message));
  }
}

/** The modal a link meets when it would do more than a click on a row: true on "Open Session". */
function askFirst(deps: CommandContext, agent: string, session: SessionInfo, doubts: readonly LinkDoubt[]): Promise<boolean> {
  const why: Record<LinkDoubt, string> = {
    notListed: vscode.l10n.t('The agent does not list this session here.'),
    outsideWorkspace: vscode.l10n.t('The folder is not open in this window.'),
    agentStopped: vscode.l10n.t('The agent is not running: opening the session starts it.'),
    untrusted: vscode.l10n.t('This window is in Restricted Mode.'),
  };
  const detail = [
    // One line each, so no value can make a line of its own that reads as another field.
    vscode.l10n.t('Agent: {0}', plainLine(agent)),
    vscode.l10n.t('Folder: {0}', plainLine(session.cwd, MAX_PARAM)),
    vscode.l10n.t('Session: {0}', session.title ? `${plainLine(session.title)} (${session.sessionId})` : session.sessionId),
    '',
    ...doubts.map((d) => why[d]),
    vscode.l10n.t('An agent started in a folder may run that folder\'s hooks, settings and MCP servers. Open it only if you trust the link and the folder.'),
  ].join('\n');
  return deps.messages.confirm(vscode.l10n.t('Open the session this link names?'), detail, vscode.l10n.t('Open Session'));
}
