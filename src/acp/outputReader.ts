// The line worker's side of the agent's stdout where the worker reads it itself (outputPipe.ts
// opens it): a socket the agent writes its stdout into, accepted here, so the agent's bytes are
// read, split and parsed on this thread and reach the extension host only as what it needs of
// them. The first bytes on the socket must be the host's token: a connection that does not bring
// it is closed, and the listening socket goes as soon as the host's is accepted. Plain Node.
import { createServer, type Socket } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { LineSplitter } from './lineSplit';

export interface OutputRequest {
  /** Where to listen (a socket in a folder only this user may enter). */
  path: string;
  /** What the host writes first on its connection. */
  token: Uint8Array;
  /** Longest line accepted, in bytes, counted while buffering. */
  maxLineBytes: number;
}

/** What the host is told of the output besides its pieces. */
export type OutputEvent =
  | { kind: 'listening' }
  | { kind: 'listen-failed'; message: string }
  /** The output ended: its end (`tooLarge`: a line passed the limit; `error`: the socket failed); nothing comes after. */
  | { kind: 'end'; tooLarge?: true; error?: string };

export interface OutputControl {
  /** Reads on or holds the output (the host's backlog is high: the agent then waits on a full pipe). */
  read(on: boolean): void;
  /** The host reads nothing more: what comes is read and dropped, so the agent never blocks on it. */
  discard(): void;
}

/**
 * Listens at `request.path`; `onPiece` gets whole lines of the output (a copy of their own, to
 * transfer), `tell` the rest, in order with the pieces.
 */
export function readOutput(request: OutputRequest, onPiece: (bytes: Uint8Array) => void, tell: (event: OutputEvent) => void): OutputControl {
  let socket: Socket | undefined;
  let discarding = false;
  let ended = false;
  let reading = true;
  const end = (event: Extract<OutputEvent, { kind: 'end' }>): void => {
    if (ended) return;
    ended = true;
    tell(event);
  };
  const splitter = new LineSplitter(request.maxLineBytes, (view) => onPiece(new Uint8Array(view)));
  const take = (chunk: Buffer): void => {
    if (discarding) return;
    if (!splitter.push(chunk)) {
      discarding = true;
      splitter.clear();
      end({ kind: 'end', tooLarge: true });
    }
  };
  const server = createServer((connection) => {
    if (socket) return void connection.destroy();
    let head = Buffer.alloc(0);
    const onHead = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      if (head.length < request.token.length) return;
      connection.off('data', onHead);
      if (socket || !timingSafeEqual(head.subarray(0, request.token.length), request.token)) return void connection.destroy();
      socket = connection;
      server.close();
      connection.on('data', take);
      connection.on('end', () => {
        if (!discarding && !splitter.end()) return end({ kind: 'end', tooLarge: true });
        end({ kind: 'end' });
      });
      connection.on('error', (error) => end({ kind: 'end', error: error.message }));
      if (!reading) connection.pause();
      if (head.length > request.token.length) take(head.subarray(request.token.length));
    };
    connection.on('data', onHead);
    connection.on('error', () => undefined);
  });
  let listening = false;
  server.on('error', (error) => {
    if (!listening) tell({ kind: 'listen-failed', message: error.message });
  });
  server.listen(request.path, () => {
    listening = true;
    tell({ kind: 'listening' });
  });
  return {
    read(on) {
      reading = on;
      if (discarding || !socket) return;
      if (on) socket.resume();
      else socket.pause();
    },
    discard() {
      discarding = true;
      splitter.clear();
      socket?.resume();
    },
  };
}
