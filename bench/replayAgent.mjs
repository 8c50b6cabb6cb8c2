// A minimal ACP agent for the ingest figure: answers `initialize`, and answers `session/load`
// by writing a prepared NDJSON file of `session/update` notifications to stdout unchanged, then
// the response. The floor, our client and the SDK peer all read exactly these bytes.
// Usage: node bench/replayAgent.mjs --file replay.ndjson
import { readFileSync } from 'node:fs';

const fileArg = process.argv.indexOf('--file');
if (fileArg < 0) {
  process.stderr.write('replayAgent: --file <ndjson> is required\n');
  process.exit(2);
}
// Read before any request, so disk time is never part of a measurement.
const replay = readFileSync(process.argv[fileArg + 1]);

const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');

function handle(message) {
  if (message.id === undefined || message.id === null) return; // notifications need no answer
  switch (message.method) {
    case 'initialize':
      return send({
        jsonrpc: '2.0',
        id: message.id,
        result: {
          protocolVersion: 1,
          agentCapabilities: { loadSession: true, sessionCapabilities: { list: {} } },
          authMethods: [],
          agentInfo: { name: 'bench-replay', version: '1.0.0' },
        },
      });
    case 'session/load':
      process.stdout.write(replay);
      return send({ jsonrpc: '2.0', id: message.id, result: {} });
    case 'session/list':
      return send({ jsonrpc: '2.0', id: message.id, result: { sessions: [] } });
    default:
      return send({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32601, message: `replayAgent: ${message.method} is not implemented` },
      });
  }
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let newline;
  while ((newline = pending.indexOf('\n')) >= 0) {
    const line = pending.slice(0, newline);
    pending = pending.slice(newline + 1);
    if (line.trim()) handle(JSON.parse(line));
  }
});
process.stdin.on('end', () => process.exit(0));
