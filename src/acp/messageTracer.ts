// The trace of the messages sent to and received from an agent (`acpSessions.trace`), as language
// clients' `trace.server` writes it: each request, notification and response, with its params at `verbose`.
import type { Message } from 'vscode-jsonrpc/node';
import type { Logger, TraceLevel } from './types';

/** Logs each message sent and received, as language clients' `trace.server` does. */
export class MessageTracer {
  /** Method and start time of the requests we sent, to name their responses. */
  private readonly sentRequests = new Map<number | string, { method: string; start: number }>();
  /** Method and arrival time of the agent's requests, to name our responses. */
  private readonly receivedRequests = new Map<number | string, { method: string; start: number }>();

  constructor(
    private readonly log: Logger,
    private readonly level: () => TraceLevel,
    private readonly agentName: string,
  ) {}

  /** The level now; read once per chunk or message so that a setting change applies at once. */
  current(): TraceLevel {
    return this.level();
  }

  sent(message: Message, level: TraceLevel): void {
    if (level === 'off') return;
    const m = message as { id?: number | string | null; method?: string; params?: unknown; result?: unknown; error?: unknown };
    if (m.method !== undefined && m.id !== undefined && m.id !== null) {
      this.sentRequests.set(m.id, { method: m.method, start: Date.now() });
      this.write(level, `Sending request '${m.method} - (${m.id})'.`, 'Params', m.params);
    } else if (m.method !== undefined) {
      this.write(level, `Sending notification '${m.method}'.`, 'Params', m.params);
    } else {
      const request = m.id !== undefined && m.id !== null ? this.receivedRequests.get(m.id) : undefined;
      if (request) this.receivedRequests.delete(m.id!);
      const name = `${request?.method ?? 'unknown'} - (${m.id})`;
      const took = request ? ` Processing request took ${Date.now() - request.start}ms` : '';
      if (m.error !== undefined) this.write(level, `Sending response '${name}'.${took}`, 'Error', m.error);
      else this.write(level, `Sending response '${name}'.${took}`, 'Result', m.result);
    }
  }

  received(message: Message, level: TraceLevel): void {
    if (level === 'off') return;
    const m = message as { id?: number | string | null; method?: string; params?: unknown; result?: unknown; error?: unknown };
    if (m.method !== undefined && m.id !== undefined && m.id !== null) {
      this.receivedRequests.set(m.id, { method: m.method, start: Date.now() });
      this.write(level, `Received request '${m.method} - (${m.id})'.`, 'Params', m.params);
    } else if (m.method !== undefined) {
      this.write(level, `Received notification '${m.method}'.`, 'Params', m.params);
    } else {
      const request = m.id !== undefined && m.id !== null ? this.sentRequests.get(m.id) : undefined;
      if (request) this.sentRequests.delete(m.id!);
      const name = `${request?.method ?? 'unknown'} - (${m.id})`;
      const took = request ? ` in ${Date.now() - request.start}ms` : '';
      if (m.error !== undefined) {
        const e = m.error as { code?: unknown; message?: unknown };
        this.write(level, `Received response '${name}'${took}. Request failed: ${String(e?.message)} (${String(e?.code)}).`, 'Error', m.error);
      } else {
        this.write(level, `Received response '${name}'${took}.`, 'Result', m.result);
      }
    }
  }

  private write(level: TraceLevel, text: string, label: string, data: unknown): void {
    // Tracing is something the user turned on on purpose, so it logs at info and shows by default.
    if (level === 'verbose' && data !== undefined) {
      this.log.info(`[${this.agentName}] ${text}\n${label}: ${printable(data)}`);
    } else {
      this.log.info(`[${this.agentName}] ${text}`);
    }
  }
}

/** The traced value as indented JSON; a value nested too deep to print must not cost the message it came with. */
function printable(data: unknown): string {
  try {
    return JSON.stringify(data, null, 4);
  } catch {
    return '(not shown: nested too deep to print)';
  }
}
