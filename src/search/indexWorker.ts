// The search index's worker thread: packs and encodes the blocks of sessions whose records the
// extension host hands over in batches, and sends each block back as it is filled (its buffers
// transferred, not copied). Bundled as its own file (dist/searchWorker.js). Plain Node.
import { parentPort } from 'node:worker_threads';
import { BlockPacker, encodeBlock, type EncodedBlock, type IndexRecord } from './blocks';

export type ToWorker = { kind: 'add'; id: number; records: IndexRecord[] } | { kind: 'end'; id: number } | { kind: 'abort'; id: number };
export type FromWorker =
  | { kind: 'ready' }
  | { kind: 'blocks' | 'done'; id: number; blocks: EncodedBlock[] }
  | { kind: 'error'; id: number; message: string };

/** A buffer of its own, so that transferring it moves nothing else (zlib's output can share one). */
function own(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}

const port = parentPort;
if (port) {
  const packers = new Map<number, BlockPacker>();
  const send = (kind: 'blocks' | 'done', id: number, blocks: EncodedBlock[]) => {
    const owned = blocks.map((b) => ({ bloom: own(b.bloom), data: own(b.data), chars: b.chars }));
    port.postMessage({ kind, id, blocks: owned } satisfies FromWorker, owned.flatMap((b) => [b.bloom.buffer as ArrayBuffer, b.data.buffer as ArrayBuffer]));
  };
  port.on('message', (message: ToWorker) => {
    try {
      if (message.kind === 'abort') {
        packers.delete(message.id);
        return;
      }
      let packer = packers.get(message.id);
      if (!packer) packers.set(message.id, (packer = new BlockPacker()));
      if (message.kind === 'add') {
        const blocks: EncodedBlock[] = [];
        for (const record of message.records) for (const block of packer.add(record)) blocks.push(encodeBlock(block));
        if (blocks.length) send('blocks', message.id, blocks);
      } else {
        packers.delete(message.id);
        send('done', message.id, packer.finish().map(encodeBlock));
      }
    } catch (error) {
      packers.delete(message.id);
      port.postMessage({ kind: 'error', id: message.id, message: (error as Error)?.message ?? String(error) } satisfies FromWorker);
    }
  });
  port.postMessage({ kind: 'ready' } satisfies FromWorker);
}
