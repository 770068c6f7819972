/**
 * A server process of the throughput scenario: either the cloud's HTTP API (the core section of
 * its settings, as `npm run cloud` builds it, without background parts, so nothing but requests
 * runs while it is measured), optionally tracing to an OTLP endpoint as the entry point would, or
 * the baseline: an empty route on Node's own HTTP server. Reports its URL to the parent over IPC
 * and runs until killed. Its logs go to stdout, as in production.
 *
 * Usage (with an IPC channel): node --import tsx bench/throughput-server.ts '<ServerSpec as JSON>'
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startCloud } from '../cloud/src/cloud.js';
import { loadConfig, type CloudConfigInput } from '../cloud/src/config.js';
import { CLOUD_TRACER } from '../shared/src/tracing.js';
import { startTracing } from '../shared/src/tracing-sdk.js';

export type ServerSpec = { kind: 'empty' } | { kind: 'cloud'; config: CloudConfigInput; otlpEndpoint?: string };

async function start(spec: ServerSpec): Promise<string> {
  if (spec.kind === 'empty') {
    const server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  // As cloud/src/main.ts does when OTEL_EXPORTER_OTLP_ENDPOINT is set.
  if (spec.otlpEndpoint) startTracing(CLOUD_TRACER, { OTEL_EXPORTER_OTLP_ENDPOINT: spec.otlpEndpoint });
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
