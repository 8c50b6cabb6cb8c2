// The line worker's entry (dist/lineWorker.js): the agent's output parsed off the extension host's
// thread (acp/lineWorker.ts), the replays the connection asks for reduced here too
// (replayReduction.ts) and their kept copy's body written here as it comes (keep/keptFile.ts);
// started with `workerData` 'file', it reads and reduces one exported replay or kept copy
// instead (fileReduction.ts). Its own bundle; plain Node.
import { parentPort, workerData } from 'node:worker_threads';
import { serveLines } from '../acp/lineWorker';
import { keptSink } from '../keep/keptFile';
import { serveFile } from './fileReduction';
import { ReplayReduction, type ReductionSpec } from './replayReduction';

if (parentPort) {
  if (workerData === 'file') serveFile(parentPort);
  else serveLines(parentPort, (spec) => new ReplayReduction(spec as ReductionSpec), keptSink);
}
