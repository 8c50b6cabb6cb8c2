// ACP's stdio framing, the writing side: one JSON object per `\n`-terminated line (the reading
// side, with its line worker, is src/acp/ndjson.ts).
import type { Writable } from 'node:stream';
import { AbstractMessageWriter, type Message, type MessageWriter } from 'vscode-jsonrpc/node';
import type { MessageTracer } from './messageTracer';

/** Writes each message as one line of JSON (JSON.stringify escapes every newline inside it). */
export class NdjsonMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0;

  constructor(
    private readonly writable: Writable,
    private readonly tracer: MessageTracer,
  ) {
    super();
  }

  write(message: Message): Promise<void> {
    const level = this.tracer.current();
    if (level !== 'off') this.tracer.sent(message, level);
    const line = `${JSON.stringify(message)}\n`;
    return new Promise((resolve) => {
      if (this.writable.destroyed || this.writable.writableEnded) {
        this.fireError(new Error('The agent\'s input is closed.'), message, ++this.errorCount);
        resolve();
        return;
      }
      this.writable.write(line, 'utf8', (error) => {
        // A failed write means the agent is gone or going: the owner ends the connection on the
        // error event and fails the request then, with the exit status. Resolving here keeps
        // vscode-jsonrpc from inventing an error code the agent could have sent itself.
        if (error) this.fireError(error, message, ++this.errorCount);
        resolve();
      });
    });
  }

  end(): void {
    this.writable.end();
  }
}
