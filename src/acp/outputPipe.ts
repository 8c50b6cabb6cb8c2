// The agent's stdout, read by its connection's line worker instead of the extension host's thread:
// the worker listens on a socket in a new folder only this user may enter, this thread connects to
// it and sends a token of its own first, and the agent is spawned with that connection as its
// stdout (agentProcess.ts), then this thread closes its end. The agent's bytes never enter this
// thread: what it gets of them is what the worker parsed, with the pieces' bytes handed over
// (ndjson.ts). Nothing here where a socket cannot be an agent's stdout (Windows): there this
// thread reads, and the worker parses what it posts.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Socket, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FromLineWorker, ToLineWorker } from './lineWorker';
import type { Logger } from './types';

/** How long the worker may take to start and listen before this thread reads the output itself. */
const OPEN_TIMEOUT_MS = 10_000;

export interface OutputPipe {
  /** The line worker, running and reading the other end of {@link socket}. */
  readonly worker: Worker;
  /** The agent's stdout (this thread's end: the spawn duplicates it, then it is closed here). */
  readonly socket: Socket;
  /** Ends both, where no agent was spawned with it. */
  dispose(): void;
}

/**
 * Starts the line worker `script` reading a new socket, and connects to it. Where it cannot, the
 * output is read on this thread (the log says why, once): `undefined` where the worker runs but the
 * socket failed (the worker may still parse what this thread reads), 'no-worker' where the worker
 * did not start (this thread parses too).
 */
export async function openOutputPipe(script: string, maxLineBytes: number, merge: boolean, log: Logger, agentName: string): Promise<OutputPipe | 'no-worker' | undefined> {
  if (process.platform === 'win32') return undefined;
  let workerFailed = false;
  let dir: string | undefined;
  let worker: Worker | undefined;
  let socket: Socket | undefined;
  try {
    dir = mkdtempSync(join(tmpdir(), 'acp-sessions-'));
    const path = join(dir, 'out');
    const token = randomBytes(32);
    const started = new Worker(script);
    worker = started;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`it did not listen within ${OPEN_TIMEOUT_MS} ms`)), OPEN_TIMEOUT_MS);
      const done = (error?: Error): void => {
        clearTimeout(timer);
        started.off('message', onMessage);
        started.off('error', onError);
        started.off('exit', onExit);
        if (error) reject(error);
        else resolve();
      };
      const onMessage = (message: FromLineWorker): void => {
        if (message.kind === 'listening') done();
        else if (message.kind === 'listen-failed') done(new Error(message.message));
      };
      const onExit = (code: number): void => {
        workerFailed = true;
        done(new Error(`it exited with code ${code}`));
      };
      const onError = (error: Error): void => {
        workerFailed = true;
        done(error);
      };
      started.on('message', onMessage);
      started.on('error', onError);
      started.on('exit', onExit);
      started.postMessage({ kind: 'listen', path, token, maxLineBytes, merge } satisfies ToLineWorker);
    });
    const connected = connect(path);
    socket = connected;
    await new Promise<void>((resolve, reject) => {
      connected.once('error', reject);
      connected.once('connect', () => connected.write(token, (error) => (error ? reject(error) : resolve())));
    });
    connected.removeAllListeners('error');
    // A failure of this end after the spawn is the agent's to meet; here nothing reads it.
    connected.on('error', () => undefined);
    return {
      worker: started,
      socket: connected,
      dispose: () => {
        connected.destroy();
        void started.terminate();
      },
    };
  } catch (error) {
    socket?.destroy();
    void worker?.terminate();
    const why = (error as Error)?.message ?? error;
    if (workerFailed || !worker) {
      log.warn(`[${agentName}] The agent's output is parsed on the extension host's thread: its line worker could not start (${why}).`);
      return 'no-worker';
    }
    log.warn(`[${agentName}] The agent's output is read on the extension host's thread: its line worker could not open a socket for it (${why}).`);
    return undefined;
  } finally {
    // Connected (or failed): the path is not needed any more, and nobody else may connect.
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}
