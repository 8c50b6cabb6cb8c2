// One ACP client per configured agent, shared by the Sessions tree and every transcript.
// Starts agents on demand, notices when they exit, and restarts them with back-off.
import { AcpClient } from '../acp/client';
import { messageOf } from '../acp/errors';
import type { AgentConfig, Implementation } from '../acp/types';
import { Emitter, type Disposable, type Event } from './events';

export type AgentStartOptions = Parameters<typeof AcpClient.start>[1];
export type AgentCapabilities = AcpClient['capabilities'];
export type AuthMethodInfo = AgentCapabilities['authMethods'][number];

/** Where an agent's connection stands, as the tree shows it. */
export type AgentState =
  /** Configured, not started yet (agents start when something first needs them). */
  | { kind: 'idle' }
  | { kind: 'starting' }
  | { kind: 'connected' }
  /** Its requests answer -32000: the user has to sign in with one of its auth methods first. */
  | { kind: 'needsAuthentication'; reason: string; authMethods: AuthMethodInfo[] }
  /** Could not start, or exited. `restartAt` is when the back-off allows the next start. */
  | { kind: 'failed'; reason: string; restartAt: number }
  /** Runs, but speaks nothing this client can use (e.g. an unknown protocol version). */
  | { kind: 'unsupported'; reason: string };

/** A configured agent as the UI sees it. */
export interface Agent {
  readonly name: string;
  readonly config: AgentConfig;
  readonly state: AgentState;
  /** `agentInfo` from `initialize`, once connected. */
  readonly agentInfo: Implementation | undefined;
  /** From `initialize`, once connected (kept while failed, for the tooltip). */
  readonly capabilities: AgentCapabilities | undefined;
  readonly protocolVersion: number | undefined;
}

export interface AgentRegistryOptions {
  /** Options for each start; a function is read at every start, so settings changes apply. */
  start: AgentStartOptions | (() => AgentStartOptions);
  /** First restart delay after a failure; doubles per consecutive failure up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

class AgentSlot implements Agent {
  state: AgentState = { kind: 'idle' };
  agentInfo: Implementation | undefined;
  capabilities: AgentCapabilities | undefined;
  protocolVersion: number | undefined;
  client: AcpClient | undefined;
  starting: Promise<AcpClient> | undefined;
  /** Ends a start under way (its agent is stopped at once instead of after initialize). */
  readonly startAbort = new AbortController();
  /** Consecutive failures, for the back-off; reset by a user's explicit restart. */
  failures = 0;
  disconnectSubscription: { dispose(): void } | undefined;
  disposed = false;

  constructor(
    readonly name: string,
    readonly config: AgentConfig,
  ) {}
}

export class AgentRegistry implements Disposable {
  private readonly slots = new Map<string, AgentSlot>();
  private readonly onDidChangeStateEmitter = new Emitter<Agent>();
  private readonly onDidChangeAgentsEmitter = new Emitter<void>();
  /** Fires when an agent's state (or what is known about it) changes. */
  readonly onDidChangeState: Event<Agent> = this.onDidChangeStateEmitter.event;
  /** Fires when agents are added, removed or reconfigured. */
  readonly onDidChangeAgents: Event<void> = this.onDidChangeAgentsEmitter.event;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private blockedReason: string | undefined;
  private disposing: Promise<void> | undefined;

  constructor(private readonly options: AgentRegistryOptions) {
    this.backoffMs = options.backoffMs ?? 500;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
  }

  get agents(): readonly Agent[] {
    return [...this.slots.values()];
  }

  agent(name: string): Agent | undefined {
    return this.slots.get(name);
  }

  /**
   * Replaces the configured agents. Unchanged entries keep their running process; changed or
   * removed ones are stopped.
   */
  setConfigs(configs: readonly AgentConfig[]): void {
    const next = new Map<string, AgentSlot>();
    for (const config of configs) {
      const existing = this.slots.get(config.name);
      if (existing && sameConfig(existing.config, config)) next.set(config.name, existing);
      else next.set(config.name, new AgentSlot(config.name, config));
    }
    for (const [name, slot] of this.slots) {
      if (next.get(name) !== slot) this.stop(slot);
    }
    this.slots.clear();
    for (const [name, slot] of next) this.slots.set(name, slot);
    this.onDidChangeAgentsEmitter.fire();
  }

  /**
   * The agent's connected client, starting the agent when it is not running. After a failure
   * the next start waits out the back-off (500 ms doubling to 30 s), so a crashing agent is not
   * restarted in a tight loop.
   */
  getClient(name: string): Promise<AcpClient> {
    const slot = this.slots.get(name);
    if (!slot) return Promise.reject(new Error(`No agent named "${name}" is configured (setting acpSessions.agents).`));
    if (slot.client?.isConnected) return Promise.resolve(slot.client);
    if (this.blockedReason !== undefined && !slot.starting) return Promise.reject(new StartBlockedError(this.blockedReason));
    if (!slot.starting) {
      slot.starting = this.start(slot).finally(() => {
        slot.starting = undefined;
      });
    }
    return slot.starting;
  }

  /** Why no agent may start now (e.g. an untrusted workspace), or undefined when they may. */
  get startBlocked(): string | undefined {
    return this.blockedReason;
  }

  /**
   * Stops (with a reason) or allows agents starting; running agents are left alone. Every agent
   * reports a change, so views say why nothing starts, or start what they need.
   */
  setStartBlocked(reason: string | undefined): void {
    if (reason === this.blockedReason) return;
    this.blockedReason = reason;
    for (const slot of this.slots.values()) if (!slot.disposed) this.onDidChangeStateEmitter.fire(slot);
  }

  /** The running client without starting anything. */
  connectedClient(name: string): AcpClient | undefined {
    const client = this.slots.get(name)?.client;
    return client?.isConnected ? client : undefined;
  }

  /** Stops the agent (if running) and starts it again at once, forgetting earlier failures. */
  async restart(name: string): Promise<AcpClient> {
    const slot = this.slots.get(name);
    if (!slot) throw new Error(`No agent named "${name}" is configured (setting acpSessions.agents).`);
    this.resetBackoff(name);
    if (slot.starting) await slot.starting.catch(() => undefined);
    if (slot.client) await this.disconnect(slot);
    return this.getClient(name);
  }

  /** Lets the next `getClient` start a failed agent without waiting out the back-off. */
  resetBackoff(name: string): void {
    const slot = this.slots.get(name);
    if (!slot) return;
    slot.failures = 0;
    if (slot.state.kind === 'failed') this.setState(slot, { ...slot.state, restartAt: Date.now() });
  }

  /**
   * Called by users of a client when the agent answered -32000: the agent stays running, but
   * nothing works until the user signs in.
   */
  reportAuthenticationRequired(name: string, reason: string): void {
    const slot = this.slots.get(name);
    if (!slot || slot.state.kind === 'needsAuthentication') return;
    this.setState(slot, { kind: 'needsAuthentication', reason, authMethods: slot.capabilities?.authMethods ?? [] });
  }

  /** Stops every agent; resolves once each process (and its process group) has ended. */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      const slots = [...this.slots.values()];
      this.slots.clear();
      await Promise.all(slots.map((slot) => this.stop(slot)));
      this.onDidChangeStateEmitter.dispose();
      this.onDidChangeAgentsEmitter.dispose();
    })();
    return this.disposing;
  }

  private async start(slot: AgentSlot): Promise<AcpClient> {
    const wait = slot.state.kind === 'failed' ? slot.state.restartAt - Date.now() : 0;
    // Aborted by stop(): a removed agent or a deactivation does not wait out the back-off.
    if (wait > 0) await abortableDelay(wait, slot.startAbort.signal);
    if (slot.disposed) throw new Error(`Agent "${slot.name}" was removed from the settings.`);
    this.setState(slot, { kind: 'starting' });
    let client: AcpClient;
    try {
      client = await AcpClient.start(slot.config, this.startOptions(), slot.startAbort.signal);
    } catch (err) {
      if (!slot.disposed) this.fail(slot, err);
      throw err;
    }
    if (slot.disposed) {
      await client.dispose();
      throw new Error(`Agent "${slot.name}" was removed from the settings.`);
    }
    slot.client = client;
    slot.agentInfo = client.agentInfo;
    slot.capabilities = client.capabilities;
    slot.protocolVersion = client.protocolVersion;
    slot.disconnectSubscription = client.onDidDisconnect((error) => {
      // Only the current client's exit matters; a client we replaced is expected to go away.
      if (slot.client !== client || slot.disposed) return;
      slot.client = undefined;
      slot.disconnectSubscription?.dispose();
      slot.disconnectSubscription = undefined;
      this.startOptions().log.warn(`Agent "${slot.name}" disconnected: ${messageOf(error)}`);
      this.fail(slot, error);
    });
    this.setState(slot, { kind: 'connected' });
    return client;
  }

  private startOptions(): AgentStartOptions {
    return typeof this.options.start === 'function' ? this.options.start() : this.options.start;
  }

  private fail(slot: AgentSlot, error: unknown): void {
    slot.failures++;
    const delay = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** (slot.failures - 1));
    const reason = messageOf(error);
    if (/protocol version/i.test(reason) && (error as { name?: string })?.name !== 'AgentDisconnectedError') {
      this.setState(slot, { kind: 'unsupported', reason });
    } else {
      this.setState(slot, { kind: 'failed', reason, restartAt: Date.now() + delay });
    }
  }

  private async disconnect(slot: AgentSlot): Promise<void> {
    const client = slot.client;
    slot.client = undefined;
    slot.disconnectSubscription?.dispose();
    slot.disconnectSubscription = undefined;
    if (client) await client.dispose().catch(() => undefined);
  }

  private async stop(slot: AgentSlot): Promise<void> {
    slot.disposed = true;
    slot.startAbort.abort();
    await this.disconnect(slot);
    // A start still under way ends in a client that `start` disposes itself (slot.disposed).
    await slot.starting?.catch(() => undefined);
  }

  private setState(slot: AgentSlot, state: AgentState): void {
    slot.state = state;
    if (!slot.disposed) this.onDidChangeStateEmitter.fire(slot);
  }
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function sameConfig(a: AgentConfig, b: AgentConfig): boolean {
  return JSON.stringify(normalize(a)) === JSON.stringify(normalize(b));
}

function normalize(config: AgentConfig): unknown {
  const env = config.env ?? {};
  return [
    config.name,
    config.command,
    config.args ?? [],
    Object.keys(env)
      .sort()
      .map((k) => [k, env[k]]),
    config.cwd ?? null,
    config.protocol ?? 1,
  ];
}

/** Nothing was started: starting agents is not allowed now (`AgentRegistry.startBlocked`). */
export class StartBlockedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'StartBlockedError';
  }
}

// In src/acp/errors.ts, a module without state, so that lazily loaded bundles import it from there.
export { messageOf };
