// The line worker: decodes and parses the agent's output off the extension host's thread (one
// worker per agent connection, started by lineWorkerClient.ts). Each piece comes in with its id,
// and goes back, in order, parsed (lineParse.ts) with its bytes (transferred, not copied), so the
// connection hands on every update with its line as it does when it parses them itself. Bundled as
// its own file (dist/lineWorker.js). Plain Node.
import { parentPort } from 'node:worker_threads';
import { parsePiece, type ParsedEntry } from './lineParse';

export type ToLineWorker = { id: number; bytes: Uint8Array; merge: boolean };
export type FromLineWorker = { kind: 'ready' } | { kind: 'parsed'; id: number; entries: ParsedEntry[]; bytes: Uint8Array } | { kind: 'error'; id: number; message: string };

const port = parentPort;
if (port) {
  port.on('message', (message: ToLineWorker) => {
    try {
      const { entries, bytes } = parsePiece(message.bytes, message.merge);
      const transfer = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer as ArrayBuffer] : [];
      port.postMessage({ kind: 'parsed', id: message.id, entries, bytes } satisfies FromLineWorker, transfer);
    } catch (error) {
      port.postMessage({ kind: 'error', id: message.id, message: (error as Error)?.message ?? String(error) } satisfies FromLineWorker);
    }
  });
  port.postMessage({ kind: 'ready' } satisfies FromLineWorker);
}
