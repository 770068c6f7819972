/**
 * One reservation is one trace: the HTTP request that creates the order, the allocation, the
 * command's publish to the locker, the agent's apply, the courier's load and door close, the
 * cloud's apply of the load event and the notification's delivery to the marketplace receiver.
 * Cloud and agent run in this process (link world) under one tracer provider with an in-memory
 * exporter; the trace context crosses the link only inside the messages (`traceparent`).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { once } from 'node:events';
import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type NotificationDispatcher, createNotificationDispatcher } from '../../cloud/src/notify/dispatcher.js';
import { loadNotifySettings } from '../../cloud/src/notify/settings.js';
import { OrderState } from '../../shared/src/enums.js';
import { AGENT_TRACER, CLOUD_TRACER } from '../../shared/src/tracing.js';
import { type AgentRig, type LinkWorld, eventually, openLinkWorld } from '../link/link-world.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const received: { body: unknown; headers: IncomingHttpHeaders }[] = [];
let receiver: Server;
let w: LinkWorld;
let dispatcher: NotificationDispatcher;

beforeAll(async () => {
  provider.register();
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown, headers: req.headers });
      res.writeHead(200).end('ok');
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const address = receiver.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  w = await openLinkWorld('sqlite', 'embedded', { receiver: { url: `http://127.0.0.1:${port}`, login: 'shop', password: 'shop-secret' } });
  const { deps } = w.cloud;
  dispatcher = createNotificationDispatcher(
    { cdb: deps.cdb, clock: deps.clock, signals: deps.signals, logger: pino({ level: 'silent' }) },
    loadNotifySettings({}, { allowPlainHttp: true, pollSeconds: 1 }),
  );
  await dispatcher.start();
}, 30_000);

afterAll(async () => {
  await dispatcher?.stop();
  await w?.close();
  receiver?.close();
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

async function signInAndLoad(rig: AgentRig, code: string, barcode: string): Promise<void> {
  await rig.post('/api/home');
  await rig.post('/api/choose', { kind: 'courier' });
  const signedIn = await rig.post('/api/code', { kind: 'courier', code });
  if (signedIn.view.screen !== 'courier') throw new Error(`courier not signed in: ${JSON.stringify(signedIn)}`);
  const s = await rig.post('/api/scan', { barcode });
  if (s.view.screen !== 'load_open') throw new Error(`no cell opened for ${barcode}: ${JSON.stringify(s)}`);
  rig.sim.closeDoor({ bus: 'main', board: 0, lock: rig.agent.store.cells.get(s.view.cellId)!.lock });
  await rig.until((x) => x.view.screen === 'courier' && x.view.notice?.kind === 'loaded', `load of ${barcode}`);
}

const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

function only(name: string, pred: (s: ReadableSpan) => boolean = () => true): ReadableSpan {
  const found = spans().filter((s) => s.name === name && pred(s));
  expect(found, `one ${name} span`).toHaveLength(1);
  return found[0]!;
}

it('follows a reservation from the HTTP request through the locker and back to the notification in one trace', async () => {
  const id = w.takeLocker();
  const rig = await w.startAgent(id);
  await w.converged(rig);
  const code = await w.createRoute(id, `courier-trace-${id}`);
  await w.converged(rig);
  exporter.reset();

  const barcode = await w.createOrder(id, `trace-${id}`);
  await w.converged(rig);
  await signInAndLoad(rig, code, barcode);
  await w.converged(rig);
  expect(await w.orderState(barcode, code)).toBe(OrderState.CourierLoaded);

  const http = only('smartorder/create');
  const traceId = http.spanContext().traceId;
  const inTrace = (s: ReadableSpan): boolean => s.spanContext().traceId === traceId;
  const eventApply = only('locker.event.apply', (s) => s.attributes['locker.event.type'] === 'parcel.loaded');
  // The loaded order's notifications, delivered under the event's apply span.
  await eventually(
    () => spans().some((s) => s.name === 'notification.deliver' && parentOf(s) === eventApply.spanContext().spanId),
    'the delivery of a notification recorded by the load',
  );

  expect(http.instrumentationScope.name).toBe(CLOUD_TRACER);
  expect(parentOf(http)).toBeUndefined();
  const allocation = only('allocation');
  expect(parentOf(allocation)).toBe(http.spanContext().spanId);

  const publish = only('command.publish', (s) => inTrace(s) && parentOf(s) === http.spanContext().spanId);
  expect(publish.attributes['locker.command.type']).toBe('order.upsert');
  const apply = only('command.apply', (s) => parentOf(s) === publish.spanContext().spanId);
  expect(apply.instrumentationScope.name).toBe(AGENT_TRACER);
  expect(apply.attributes['locker.command.cseq']).toBe(publish.attributes['locker.command.cseq']);

  const load = only('parcel.load');
  expect(load.instrumentationScope.name).toBe(AGENT_TRACER);
  expect(parentOf(load)).toBe(apply.spanContext().spanId);
  const close = only('door.close');
  expect(parentOf(close)).toBe(load.spanContext().spanId);

  expect(eventApply.instrumentationScope.name).toBe(CLOUD_TRACER);
  expect(parentOf(eventApply)).toBe(close.spanContext().spanId);
  const delivery = spans().find((s) => s.name === 'notification.deliver' && parentOf(s) === eventApply.spanContext().spanId)!;

  for (const s of [allocation, publish, apply, load, close, eventApply, delivery]) expect(s.spanContext().traceId, s.name).toBe(traceId);
  // The receiver got the delivery span's context in the request's traceparent header.
  const traced = received.filter((r) => r.headers.traceparent === `00-${traceId}-${delivery.spanContext().spanId}-01`);
  expect(traced).toHaveLength(1);
}, 30_000);
