/**
 * A server process of the throughput scenario: either the cloud's HTTP API (the core section of
 * its settings, as `npm run cloud` builds it, without background parts, so nothing but requests
 * runs while it is measured) or an empty Fastify route, the baseline. Reports its URL to the
 * parent over IPC and runs until killed. Its logs go to stdout, as in production.
 *
 * Usage (with an IPC channel): node --import tsx bench/throughput-server.ts '<ServerSpec as JSON>'
 */
import Fastify from 'fastify';
import { startCloud } from '../cloud/src/cloud.js';
import { loadConfig, type CloudConfigInput } from '../cloud/src/config.js';

export type ServerSpec = { kind: 'empty' } | { kind: 'cloud'; config: CloudConfigInput };

async function start(spec: ServerSpec): Promise<string> {
  if (spec.kind === 'empty') {
    const server = Fastify({ logger: false });
    server.get('/empty', () => ({}));
    return server.listen({ host: '127.0.0.1', port: 0 });
  }
  const cloud = await startCloud(loadConfig({}, { host: '127.0.0.1', port: 0, ...spec.config }));
  return cloud.url;
}

const url = await start(JSON.parse(process.argv[2]!) as ServerSpec);
process.send?.({ url });
// The CPU time this process has used, asked before and after a measurement: what a request costs
// the server, whatever else runs on the machine.
process.on('message', (m) => {
  if (m === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMicros: user + system });
  }
});
// Exits on SIGTERM (normally, so that --cpu-prof writes its profile) or with the parent.
process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));
