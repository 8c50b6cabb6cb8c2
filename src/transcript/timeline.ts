// The timeline reducer: turns one session's ordered `session/update` stream into ordered
// entities with stable keys. Pure (no `vscode`, no timers); reports each change to a listener
// so the host can batch patches for the webview.
import { appendText, carryPieces } from '../acp/textPieces';
import { joinText, safeJson, toPart } from './contentParts';
import { EntityStore } from './entityStore';
import {
  bodyOf,
  type CompactionEntity,
  type Entity,
  type MessageEntity,
  type MessageRole,
  type Notice,
  type Part,
  type PlanEntity,
  type PlanEntry,
  type SessionState,
  type SubagentEntity,
  type ToolCallContentItem,
  type ToolCallEntity,
  type ToolCallLocation,
  type UnknownEntity,
} from './model';

/** What the reducer reports; `appended` means text was added to the last text part of the body. */
export interface TimelineListener {
  created(entity: Entity): void;
  changed(entity: Entity): void;
  appended(entity: Entity, text: string): void;
  removed(key: string): void;
  stateChanged(state: SessionState): void;
}

type Json = Record<string, unknown>;

/** `session/update` kinds that are session state, not conversation. */
const STATE_KINDS = new Set([
  'usage_update',
  'notice',
  'session_info_update',
  'current_mode_update',
  'available_commands_update',
  'config_option_update',
]);

/** A map: a kind is the agent's string, and an object's lookup would find `constructor`. */
const MESSAGE_KINDS: ReadonlyMap<string, MessageRole> = new Map([
  ['user_message_chunk', 'user_message'],
  ['agent_message_chunk', 'agent_message'],
  ['agent_thought_chunk', 'thought'],
  ['session_message_chunk', 'session_message'],
]);

/** What a timeline knows besides its rows: handed from the line worker's reduction to the extension host with its store's image. */
export interface TimelineImage {
  state: SessionState;
  updateCount: number;
  nextKey: number;
  turnPlan: number | undefined;
  compactions: [string, number][];
  toolCalls: [string, number][];
  messages: [string, number][];
  plans: [string, number][];
  subagents: [string, number][];
}

export class Timeline {
  readonly state: SessionState = { notices: [], usageHistory: [] };
  /** How many updates were applied (state and malformed ones included). */
  updateCount = 0;

  // By id, the key number of the entity (the store holds the entity, on the heap or in its file).
  private readonly compactions = new Map<string, number>();
  private readonly toolCalls = new Map<string, number>();
  private readonly messages = new Map<string, number>();
  private readonly plans = new Map<string, number>();
  private readonly subagents = new Map<string, number>();
  /** The `plan` of the current turn: replaced in place until the next user message. */
  private turnPlan: number | undefined;
  private nextKey = 0;

  /**
   * `rows`: where the entities are kept; by default all on the heap, or a store that spills
   * them to a file and keeps a bounded cache.
   */
  constructor(
    private readonly listener?: TimelineListener,
    readonly rows: EntityStore = new EntityStore(),
  ) {}

  /** What this timeline knows besides its rows (see {@link TimelineImage}). */
  image(): TimelineImage {
    return {
      state: this.state,
      updateCount: this.updateCount,
      nextKey: this.nextKey,
      turnPlan: this.turnPlan,
      compactions: [...this.compactions],
      toolCalls: [...this.toolCalls],
      messages: [...this.messages],
      plans: [...this.plans],
      subagents: [...this.subagents],
    };
  }

  /** The ids of what the transcript's header lists (compactions, subagents), with their key numbers, in the order first seen. */
  listed(): Pick<TimelineImage, 'compactions' | 'subagents'> {
    return { compactions: [...this.compactions], subagents: [...this.subagents] };
  }

  /** The timeline an {@link image} describes, over `rows` (its store's image adopted), going on where it stopped. */
  static fromImage(image: TimelineImage, listener: TimelineListener | undefined, rows: EntityStore): Timeline {
    const timeline = new Timeline(listener, rows);
    Object.assign(timeline.state, image.state);
    timeline.updateCount = image.updateCount;
    timeline.nextKey = image.nextKey;
    timeline.turnPlan = image.turnPlan;
    for (const [map, entries] of [
      [timeline.compactions, image.compactions],
      [timeline.toolCalls, image.toolCalls],
      [timeline.messages, image.messages],
      [timeline.plans, image.plans],
      [timeline.subagents, image.subagents],
    ] as const) {
      for (const [id, n] of entries) map.set(id, n);
    }
    return timeline;
  }

  /**
   * In timeline order (each entity stays where it was first seen), as one array: every row read.
   * For tests and small timelines; the transcript reads `rows`.
   */
  get entities(): Entity[] {
    const entities: Entity[] = new Array(this.rows.length);
    for (let i = 0; i < entities.length; i++) entities[i] = this.rows.peek(i)!;
    return entities;
  }

  get(key: string): Entity | undefined {
    return /^e\d+$/.test(key) ? this.rows.get(keyNumber(key)) : undefined;
  }

  /**
   * Where the entity with `key` stands in the rows, or -1: keys are numbered in creation
   * order and entities only ever leave, so the rows are sorted by key number (a bisection).
   */
  indexOf(key: string): number {
    return /^e\d+$/.test(key) ? this.rows.indexOfKeyNumber(keyNumber(key)) : -1;
  }

  compaction(compactionId: string): CompactionEntity | undefined {
    const n = this.compactions.get(compactionId);
    return n === undefined ? undefined : (this.rows.get(n) as CompactionEntity);
  }

  /** The compactions in the order they were first seen. */
  *compactionsInOrder(): IterableIterator<CompactionEntity> {
    for (const n of this.compactions.values()) yield this.rows.get(n) as CompactionEntity;
  }

  /** The children `subagent_update`s announced, in the order they were first seen. */
  *subagentsInOrder(): IterableIterator<SubagentEntity> {
    for (const n of this.subagents.values()) yield this.rows.get(n) as SubagentEntity;
  }

  /** The child a `subagent_update` announced, by its session id. */
  subagent(sessionId: string): SubagentEntity | undefined {
    const n = this.subagents.get(sessionId);
    return n === undefined ? undefined : (this.rows.get(n) as SubagentEntity);
  }

  /** How many entities were ever created: positions along the transcript (keys are `e<n>`). */
  get created(): number {
    return this.nextKey;
  }

  /**
   * Applies one `session/update` payload. Never throws: bad input becomes a visible entity.
   * `count`: how many of the agent's updates it stands for (text chunks the line worker merged).
   */
  apply(update: unknown, count = 1): void {
    this.updateCount += count;
    if (!isObject(update) || typeof update.sessionUpdate !== 'string') {
      this.addUnknown('(missing sessionUpdate)', update, 'the update has no `sessionUpdate` kind');
      return;
    }
    const kind = update.sessionUpdate;
    const role = MESSAGE_KINDS.get(kind);
    if (role) return this.applyChunk(role, update);
    switch (kind) {
      case 'compaction_update':
        return this.applyCompactionUpdate(update);
      case 'compaction_summary_chunk':
        return this.applyCompactionChunk(update);
      case 'tool_call':
        return this.applyToolCall(update);
      case 'tool_call_update':
        return this.applyToolCallUpdate(update);
      case 'plan':
        return this.applyPlan(update);
      case 'plan_update':
        return this.applyPlanUpdate(update);
      case 'plan_removed':
        return this.applyPlanRemoved(update);
      case 'subagent_update':
        return this.applySubagentUpdate(update);
      case 'session_message':
        return this.applySessionMessage(update);
    }
    if (STATE_KINDS.has(kind)) return this.applyState(kind, update);
    this.addUnknown(kind, update);
  }

  // --- messages and thoughts -------------------------------------------------------------

  private applyChunk(role: MessageRole, update: Json): void {
    if (!isObject(update.content)) {
      return this.addUnknown(update.sessionUpdate as string, update, 'the chunk has no `content` block');
    }
    const part = this.chunkPart(update.content);
    const messageId = typeof update.messageId === 'string' ? update.messageId : undefined;
    let message: MessageEntity | undefined;
    if (messageId !== undefined) {
      // Chunks with the same messageId belong to the same message, wherever it stands.
      const n = this.messages.get(`${role}\u0000${messageId}`);
      if (n !== undefined) message = this.rows.change(n) as MessageEntity;
    } else {
      // Without an id, a chunk joins the message right before it when it has the same role.
      const last = this.rows.length - 1;
      if (last >= 0 && this.rows.kindAt(last) === role) message = this.rows.change(this.rows.keyNumberAt(last)) as MessageEntity;
    }
    if (!message) {
      message = { kind: role, key: this.key(), parts: [] };
      if (messageId !== undefined) {
        message.messageId = messageId;
        this.messages.set(`${role}\u0000${messageId}`, keyNumber(message.key));
      }
      if (role === 'user_message') this.turnPlan = undefined;
      message.parts.push(part);
      return this.add(message);
    }
    this.appendPart(message, message.parts, part);
  }

  /**
   * A chunk's block as a part. Where rows are written to a file, a text part keeps the pieces its
   * text was merged from, and those appended to it (textPieces.ts: written without a copy of the
   * whole); on the heap they would only be held twice once the text is read.
   */
  private chunkPart(block: unknown): Part {
    const part = toPart(block);
    if (part.type === 'text' && this.rows.spills) carryPieces(block as { text: string }, part);
    return part;
  }

  /** Appends a block to a body: text onto a trailing text part (an `append`), else a new part. */
  private appendPart(entity: Entity, parts: Part[], part: Part): void {
    const last = parts[parts.length - 1];
    if (part.type === 'text' && last?.type === 'text' && last.forModel === part.forModel) {
      if (this.rows.spills) appendText(last, part);
      else last.text += part.text;
      this.listener?.appended(entity, part.text);
    } else {
      parts.push(part);
      this.listener?.changed(entity);
    }
  }

  // --- compactions (compaction RFD) ------------------------------------------------------

  private applyCompactionUpdate(update: Json): void {
    const { compactionId, status } = update;
    if (typeof compactionId !== 'string' || !compactionId) {
      return this.addUnknown('compaction_update', update, '`compactionId` must be a non-empty string');
    }
    if (typeof status !== 'string') {
      return this.addUnknown('compaction_update', update, '`status` must be a string');
    }
    const [compaction, isNew] = this.compactionFor(compactionId);
    compaction.status = status;
    // Patch fields: omitted leaves the value, null clears it, a value replaces it.
    if ('summary' in update) {
      const summary = update.summary;
      compaction.summary = Array.isArray(summary) ? joinText(summary.map(toPart)) : [];
    }
    if ('error' in update) {
      if (update.error === null || update.error === undefined) delete compaction.error;
      else compaction.error = String(update.error);
    }
    if ('_meta' in update) {
      if (isObject(update._meta)) compaction.meta = update._meta;
      else delete compaction.meta;
    }
    if (isNew) this.add(compaction);
    else this.listener?.changed(compaction);
  }

  private applyCompactionChunk(update: Json): void {
    const { compactionId, content } = update;
    if (typeof compactionId !== 'string' || !compactionId) {
      return this.addUnknown('compaction_summary_chunk', update, '`compactionId` must be a non-empty string');
    }
    if (!isObject(content)) {
      return this.addUnknown('compaction_summary_chunk', update, 'the chunk has no `content` block');
    }
    const [compaction, isNew] = this.compactionFor(compactionId);
    if (isNew) {
      compaction.summary.push(this.chunkPart(content));
      return this.add(compaction);
    }
    // Chunks apply whatever the status, terminal ones included.
    this.appendPart(compaction, compaction.summary, this.chunkPart(content));
  }

  /** A first-seen id starts in_progress with no optional fields, placed here in receive order. */
  private compactionFor(compactionId: string): [CompactionEntity, boolean] {
    const existing = this.changeById(this.compactions, compactionId) as CompactionEntity | undefined;
    if (existing) return [existing, false];
    const created: CompactionEntity = { kind: 'compaction', key: this.key(), compactionId, status: 'in_progress', summary: [] };
    this.compactions.set(compactionId, keyNumber(created.key));
    return [created, true];
  }

  // --- tool calls ------------------------------------------------------------------------

  private applyToolCall(update: Json): void {
    const { toolCallId } = update;
    if (typeof toolCallId !== 'string' || !toolCallId) {
      return this.addUnknown('tool_call', update, '`toolCallId` must be a non-empty string');
    }
    const existing = this.changeById(this.toolCalls, toolCallId) as ToolCallEntity | undefined;
    const toolCall: ToolCallEntity = existing ?? {
      kind: 'tool_call',
      key: this.key(),
      toolCallId,
      title: '',
      content: [],
      locations: [],
    };
    // A repeated tool_call restates the whole call: reset before applying it.
    toolCall.title = typeof update.title === 'string' ? update.title : toolCallId;
    delete toolCall.toolKind;
    delete toolCall.status;
    delete toolCall.rawInput;
    delete toolCall.rawOutput;
    toolCall.content = [];
    toolCall.locations = [];
    patchToolCall(toolCall, update);
    if (existing) return this.listener?.changed(toolCall);
    this.toolCalls.set(toolCallId, keyNumber(toolCall.key));
    this.add(toolCall);
  }

  private applyToolCallUpdate(update: Json): void {
    const { toolCallId } = update;
    if (typeof toolCallId !== 'string' || !toolCallId) {
      return this.addUnknown('tool_call_update', update, '`toolCallId` must be a non-empty string');
    }
    const existing = this.changeById(this.toolCalls, toolCallId) as ToolCallEntity | undefined;
    if (existing) {
      patchToolCall(existing, update);
      return this.listener?.changed(existing);
    }
    // An update for a call never announced still says something: show it as a call.
    const toolCall: ToolCallEntity = { kind: 'tool_call', key: this.key(), toolCallId, title: toolCallId, content: [], locations: [] };
    patchToolCall(toolCall, update);
    this.toolCalls.set(toolCallId, keyNumber(toolCall.key));
    this.add(toolCall);
  }

  // --- plans -----------------------------------------------------------------------------

  /** A v1 `plan` is the complete plan: it replaces the current turn's plan in place. */
  private applyPlan(update: Json): void {
    if (!Array.isArray(update.entries)) return this.addUnknown('plan', update, '`entries` must be an array');
    const entries = update.entries.map(toPlanEntry);
    const current = this.turnPlan === undefined ? undefined : (this.rows.change(this.turnPlan) as PlanEntity | undefined);
    if (current) {
      current.entries = entries;
      return this.listener?.changed(current);
    }
    const plan: PlanEntity = { kind: 'plan', key: this.key(), entries };
    this.turnPlan = keyNumber(plan.key);
    this.add(plan);
  }

  /** `plan_update` (unstable) addresses a plan by `planId`; each update replaces that plan. */
  private applyPlanUpdate(update: Json): void {
    const plan = update.plan;
    if (!isObject(plan) || typeof plan.planId !== 'string') {
      return this.addUnknown('plan_update', update, '`plan.planId` must be a string');
    }
    const existing = this.changeById(this.plans, plan.planId) as PlanEntity | undefined;
    const entity: PlanEntity = existing ?? { kind: 'plan', key: this.key(), planId: plan.planId, entries: [] };
    entity.entries = Array.isArray(plan.entries) ? plan.entries.map(toPlanEntry) : [];
    delete entity.markdown;
    delete entity.file;
    if (plan.type === 'markdown') entity.markdown = stringField(plan, 'markdown') ?? stringField(plan, 'text') ?? '';
    if (plan.type === 'file') entity.file = stringField(plan, 'path') ?? stringField(plan, 'uri') ?? '';
    if (existing) return this.listener?.changed(entity);
    this.plans.set(plan.planId, keyNumber(entity.key));
    this.add(entity);
  }

  private applyPlanRemoved(update: Json): void {
    const planId = update.planId;
    const n = typeof planId === 'string' ? this.plans.get(planId) : undefined;
    if (n === undefined) return this.addUnknown('plan_removed', update, 'no plan with this `planId` is shown');
    this.plans.delete(planId as string);
    this.rows.removeAt(this.rows.indexOfKeyNumber(n));
    this.listener?.removed(`e${n}`);
  }

  // --- subagents (unstable schema) --------------------------------------------------------

  private applySubagentUpdate(update: Json): void {
    const { sessionId } = update;
    if (typeof sessionId !== 'string' || !sessionId) {
      return this.addUnknown('subagent_update', update, '`sessionId` must be a non-empty string');
    }
    const existing = this.changeById(this.subagents, sessionId) as SubagentEntity | undefined;
    const subagent: SubagentEntity = existing ?? { kind: 'subagent', key: this.key(), sessionId };
    // Patch fields: omitted leaves the value, null clears it, a value replaces it.
    for (const field of ['title', 'description', 'cwd'] as const) {
      if (!(field in update)) continue;
      const value = update[field];
      if (typeof value === 'string') subagent[field] = value;
      else delete subagent[field];
    }
    if ('state' in update) {
      if (isObject(update.state) && typeof update.state.state === 'string') subagent.state = update.state.state;
      else delete subagent.state;
    }
    if (existing) return this.listener?.changed(subagent);
    this.subagents.set(sessionId, keyNumber(subagent.key));
    this.add(subagent);
  }

  /** An upsert of a message between sessions: patch fields (omitted keeps, null clears), `content` replaces. */
  private applySessionMessage(update: Json): void {
    const { messageId } = update;
    if (typeof messageId !== 'string' || !messageId) {
      return this.addUnknown('session_message', update, '`messageId` must be a non-empty string');
    }
    const id = `session_message\u0000${messageId}`;
    const existing = this.changeById(this.messages, id) as MessageEntity | undefined;
    const message: MessageEntity = existing ?? { kind: 'session_message', key: this.key(), messageId, parts: [] };
    for (const field of ['senderSessionId', 'recipientSessionId'] as const) {
      if (!(field in update)) continue;
      const value = update[field];
      if (typeof value === 'string') message[field] = value;
      else delete message[field];
    }
    if ('content' in update) message.parts = Array.isArray(update.content) ? joinText(update.content.map(toPart)) : [];
    if (existing) return this.listener?.changed(message);
    this.messages.set(id, keyNumber(message.key));
    this.add(message);
  }

  // --- session state ---------------------------------------------------------------------

  private applyState(kind: string, update: Json): void {
    const state = this.state;
    switch (kind) {
      case 'usage_update':
        if (!isCount(update.used) || !isCount(update.size)) {
          return this.addUnknown(kind, update, '`used` and `size` must be non-negative numbers');
        }
        state.usage = { used: update.used, size: update.size };
        state.usageHistory.push({ at: this.nextKey, used: update.used, size: update.size });
        if (isObject(update.cost) && typeof update.cost.amount === 'number' && typeof update.cost.currency === 'string') {
          state.usage.cost = { amount: update.cost.amount, currency: update.cost.currency };
        }
        break;
      case 'notice': {
        if (typeof update.title !== 'string') return this.addUnknown(kind, update, '`title` must be a string');
        const notice: Notice = { severity: String(update.severity ?? 'info'), title: update.title };
        if (typeof update.description === 'string') notice.description = update.description;
        state.notices.push(notice);
        break;
      }
      case 'session_info_update':
        // Omitted or null leaves each field unchanged.
        if (typeof update.title === 'string') state.title = update.title;
        if (typeof update.updatedAt === 'string') state.updatedAt = update.updatedAt;
        if (typeof update.archived === 'boolean') state.archived = update.archived;
        break;
      case 'current_mode_update':
        if (typeof update.currentModeId === 'string') state.currentModeId = update.currentModeId;
        break;
      case 'available_commands_update':
        if (Array.isArray(update.availableCommands)) {
          state.availableCommands = update.availableCommands
            .map((c) => (isObject(c) && typeof c.name === 'string' ? c.name : undefined))
            .filter((n): n is string => n !== undefined);
        }
        break;
      default:
        break;
    }
    this.listener?.stateChanged(state);
  }

  // --- helpers ---------------------------------------------------------------------------

  private addUnknown(sessionUpdate: string, update: unknown, problem?: string): void {
    const entity: UnknownEntity = { kind: 'unknown', key: this.key(), sessionUpdate, json: safeJson(update) };
    if (problem) entity.problem = problem;
    this.add(entity);
  }

  private add(entity: Entity): void {
    this.rows.push(entity, keyNumber(entity.key));
    this.listener?.created(entity);
  }

  /** The entity `ids` names by `id`, to change (read back from the store's file when it left the heap). */
  private changeById(ids: ReadonlyMap<string, number>, id: string): Entity | undefined {
    const n = ids.get(id);
    return n === undefined ? undefined : this.rows.change(n);
  }

  private key(): string {
    return `e${this.nextKey++}`;
  }
}

function keyNumber(key: string): number {
  return Number(key.slice(1));
}

function patchToolCall(toolCall: ToolCallEntity, update: Json): void {
  // Omitted or null leaves a field unchanged; content and locations replace the collection.
  if (typeof update.title === 'string') toolCall.title = update.title;
  if (typeof update.kind === 'string') toolCall.toolKind = update.kind;
  if (typeof update.status === 'string') toolCall.status = update.status;
  if (Array.isArray(update.content)) toolCall.content = update.content.map(toToolContent);
  if (Array.isArray(update.locations)) {
    toolCall.locations = update.locations.filter(isObject).map((l): ToolCallLocation => {
      const location: ToolCallLocation = { path: String(l.path ?? '') };
      if (typeof l.line === 'number') location.line = l.line;
      return location;
    });
  }
  if (update.rawInput !== undefined && update.rawInput !== null) toolCall.rawInput = safeJson(update.rawInput);
  if (update.rawOutput !== undefined && update.rawOutput !== null) toolCall.rawOutput = safeJson(update.rawOutput);
}

function toToolContent(item: unknown): ToolCallContentItem {
  if (isObject(item)) {
    if (item.type === 'content' && isObject(item.content)) return { type: 'content', part: toPart(item.content) };
    if (item.type === 'diff' && typeof item.path === 'string' && typeof item.newText === 'string') {
      const diff: ToolCallContentItem = { type: 'diff', path: item.path, newText: item.newText };
      if (typeof item.oldText === 'string') diff.oldText = item.oldText;
      return diff;
    }
    if (item.type === 'terminal' && typeof item.terminalId === 'string') return { type: 'terminal', terminalId: item.terminalId };
  }
  return { type: 'unknown', json: safeJson(item) };
}

function toPlanEntry(entry: unknown): PlanEntry {
  if (!isObject(entry)) return { content: safeJson(entry) };
  const result: PlanEntry = { content: typeof entry.content === 'string' ? entry.content : safeJson(entry.content) };
  if (typeof entry.priority === 'string') result.priority = entry.priority;
  if (typeof entry.status === 'string') result.status = entry.status;
  return result;
}

function stringField(object: Json, name: string): string | undefined {
  return typeof object[name] === 'string' ? (object[name] as string) : undefined;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

export { keyPosition } from './rows';

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export { bodyOf, toPart };
