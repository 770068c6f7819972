/**
 * startTracing(): nothing without an OTLP endpoint; with one, spans reach it over OTLP/HTTP under
 * the process's service name (a tiny receiver stands in for the collector).
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import { context, propagation, trace } from '@opentelemetry/api';
import { afterAll, expect, it } from 'vitest';
import { AGENT_TRACER, traceparentOf, tracer } from '../../shared/src/tracing.js';
import { startTracing } from '../../shared/src/tracing-sdk.js';

afterAll(() => {
  trace.disable();
  context.disable();
  propagation.disable();
});

it('stays off without an endpoint: no provider, no traceparent', () => {
  expect(startTracing(AGENT_TRACER, {})).toBeNull();
  expect(startTracing(AGENT_TRACER, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_SDK_DISABLED: 'true' })).toBeNull();
  const span = tracer(AGENT_TRACER).startSpan('off');
  expect(span.isRecording()).toBe(false);
  expect(traceparentOf(trace.setSpan(context.active(), span))).toBeUndefined();
  span.end();
});

it('exports spans to the OTLP endpoint under the service name', async () => {
  const bodies: { path: string; body: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  try {
    const tracing = startTracing(AGENT_TRACER, { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` });
    expect(tracing).not.toBeNull();
    const span = tracer(AGENT_TRACER).startSpan('exported');
    expect(traceparentOf(trace.setSpan(context.active(), span))).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    span.end();
    await tracing!.shutdown();
    expect(bodies.map((b) => b.path)).toEqual(['/v1/traces']);
    expect(bodies[0]!.body).toContain('parcel-locker-agent');
    expect(bodies[0]!.body).toContain('exported');
  } finally {
    server.close();
  }
});

it('refuses at start a tracing variable the SDK would ignore or misread, naming it', () => {
  const refused = (env: Record<string, string>) => () => startTracing(AGENT_TRACER, env);
  expect(refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  expect(refused({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/);
  expect(refused({ OTEL_SDK_DISABLED: 'yes' })).toThrow(/OTEL_SDK_DISABLED/);
  expect(refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER/);
  expect(refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
  expect(refused({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' })).not.toThrow();
});
