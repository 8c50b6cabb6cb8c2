// The line worker's entry (dist/lineWorker.js): the agent's output parsed off the extension host's
// thread (acp/lineWorker.ts), and the replays the connection asks for reduced here too
// (replayReduction.ts). Its own bundle; plain Node.
import { parentPort } from 'node:worker_threads';
import { serveLines } from '../acp/lineWorker';
import { ReplayReduction, type ReductionSpec } from './replayReduction';

if (parentPort) serveLines(parentPort, (spec) => new ReplayReduction(spec as ReductionSpec));
