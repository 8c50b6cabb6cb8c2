// What the client offers in `initialize` and how it reads the answer into the capabilities it
// gates every method on. Pure: no process, no connection; unit-tested on plain objects.
import { archiveMethodOf } from './archive';
import { JETBRAINS_AIR_CLIENT_META, airCapabilityName, airIndexServes, answersAirSessionIndex } from './jetbrainsAir';
import { type Problems, checkAuthMethods, checkCapability, checkImplementation, checkRecord } from './validate';
import type { AdvertisedCapabilities, ClientInfo, Implementation } from './types';

/** The capabilities a method can be gated on (the others are descriptions, not switches). */
export type GatedCapability = keyof Omit<AdvertisedCapabilities, 'authMethods' | 'archiveMethod' | 'titleMethod' | 'sessionState'>;

/** Which advertised capability each gated method needs, in the protocol's words per version. */
export const CAPABILITY_NAMES: Record<GatedCapability, { 1: string; 2: string }> = {
  loadSession: { 1: 'agentCapabilities.loadSession', 2: 'capabilities.session' },
  list: { 1: 'sessionCapabilities.list', 2: 'capabilities.session' },
  archive: { 1: 'sessionCapabilities.archive', 2: 'capabilities.session.archive' },
  delete: { 1: 'sessionCapabilities.delete', 2: 'capabilities.session.delete' },
  resume: { 1: 'sessionCapabilities.resume', 2: 'capabilities.session' },
  close: { 1: 'sessionCapabilities.close', 2: 'capabilities.session' },
  title: { 1: 'sessionCapabilities.title', 2: 'capabilities.session.title' },
  status: { 1: 'sessionCapabilities.status', 2: 'capabilities.session.status' },
  listSubscribe: { 1: airCapabilityName('listSubscribe'), 2: airCapabilityName('listSubscribe') },
  batchGet: { 1: airCapabilityName('batchGet'), 2: airCapabilityName('batchGet') },
  fork: { 1: 'sessionCapabilities.fork', 2: 'capabilities.session.fork' },
};

/** Nothing advertised: the capabilities before `initialize` answered. */
export const NO_CAPABILITIES: Readonly<AdvertisedCapabilities> = Object.freeze({
  loadSession: false,
  list: false,
  archive: false,
  delete: false,
  resume: false,
  close: false,
  title: false,
  status: false,
  listSubscribe: false,
  batchGet: false,
  fork: false,
  authMethods: [],
});

/** The `initialize` request's params for the protocol version we ask for. */
export function initializeParams(requested: 1 | 2, clientInfo: ClientInfo): object {
  const info = { ...clientInfo };
  if (requested === 2) return { protocolVersion: 2, info, capabilities: {} };
  return {
    protocolVersion: 1,
    clientInfo: info,
    // We read history: no file system or terminal for the agent; compaction rows are shown;
    // `subagents` lets a replay announce children (`subagent_update`), shown as rows.
    // `_meta` offers the JetBrains AIR session index, how today's agents archive (jetbrainsAir.ts).
    clientCapabilities: {
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
      session: { compaction: {} },
      subagents: {},
      _meta: JETBRAINS_AIR_CLIENT_META,
    },
  };
}

/** What an `initialize` answer says, read into this client's terms. */
export interface InitializeAnswer {
  protocolVersion: 1 | 2;
  agentInfo: Implementation | undefined;
  capabilities: AdvertisedCapabilities;
}

/**
 * Reads the agent's `initialize` result (anything: it is untrusted). Fields of the wrong type
 * are reported in `problems` and read as not advertised. Undefined when the agent answered a
 * protocol version this client does not speak (2 only when 2 was asked for).
 */
export function parseInitializeResult(answer: unknown, requested: 1 | 2, problems: Problems): InitializeAnswer | undefined {
  const result = checkRecord(answer, 'the initialize result', problems);
  const version = result.protocolVersion;
  if (version === 2 && requested === 2) {
    const capabilities = checkRecord(result.capabilities, 'capabilities', problems);
    const hasSession = checkCapability(capabilities.session, 'capabilities.session', problems);
    const session = checkRecord(capabilities.session === true ? {} : capabilities.session, 'capabilities.session', problems);
    const agentInfo = checkImplementation(result.info, problems);
    const parsed: AdvertisedCapabilities = {
      // v2 has no session/load: replay is session/resume with replayFrom, part of the baseline surface.
      loadSession: hasSession,
      list: hasSession,
      resume: hasSession,
      close: hasSession,
      archive: hasSession && checkCapability(session.archive, 'capabilities.session.archive', problems),
      delete: hasSession && checkCapability(session.delete, 'capabilities.session.delete', problems),
      title: false, // v2 has no set_title yet
      status: false, // nor session/status
      // Nor the AIR session index (claude-agent-acp routes it for v1 only).
      listSubscribe: false,
      batchGet: false,
      // The draft has no fork yet.
      fork: false,
      authMethods: checkAuthMethods(result.authMethods, problems),
    };
    if (parsed.archive) parsed.archiveMethod = 'standard';
    return { protocolVersion: 2, agentInfo, capabilities: parsed };
  }
  if (version !== 1) return undefined;
  const agentCapabilities = checkRecord(result.agentCapabilities, 'agentCapabilities', problems);
  const session = checkRecord(agentCapabilities.sessionCapabilities, 'sessionCapabilities', problems);
  const has = (name: string) => checkCapability(session[name], `sessionCapabilities.${name}`, problems);
  if (agentCapabilities.loadSession !== undefined && typeof agentCapabilities.loadSession !== 'boolean') {
    problems.add('agentCapabilities.loadSession that is not a boolean');
  }
  const agentInfo = checkImplementation(result.agentInfo, problems);
  const list = has('list');
  const parsed: AdvertisedCapabilities = {
    loadSession: agentCapabilities.loadSession === true,
    list,
    // The RFD requires list alongside archive; without list there is nowhere to show archived sessions.
    archive: has('archive') && list,
    delete: has('delete'),
    resume: has('resume'),
    close: has('close'),
    title: has('title'),
    status: has('status'),
    listSubscribe: false,
    batchGet: false,
    fork: has('fork'),
    authMethods: checkAuthMethods(result.authMethods, problems),
  };
  // The standard wins; where it is missing, the vendor extension the agent answered (archive.ts).
  const archiveMethod = archiveMethodOf(result, parsed.archive, list);
  if (archiveMethod) Object.assign(parsed, { archive: true, archiveMethod });
  // Live state the same way: session/status, else the AIR list entries' state (sessionState.ts).
  if (parsed.status) parsed.sessionState = 'status';
  else if (list && answersAirSessionIndex(result)) parsed.sessionState = 'jetbrains-air';
  // Rename the same way: session/set_title, else the AIR index's `_session/rename`.
  const air = airIndexServes(result);
  if (parsed.title) parsed.titleMethod = 'standard';
  else if (air.rename) Object.assign(parsed, { title: true, titleMethod: 'jetbrains-air' });
  // A live list and batch get come only with the AIR index, and need list entries to make sense.
  parsed.listSubscribe = list && air.listSubscribe;
  parsed.batchGet = list && air.batchGet;
  return { protocolVersion: 1, agentInfo, capabilities: parsed };
}
