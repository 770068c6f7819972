/**
 * Tracing helpers on the OpenTelemetry API only. Until a process registers an SDK (tracing-sdk.ts,
 * when OTEL_EXPORTER_OTLP_ENDPOINT is set) the API is a no-op: spans do not record, the propagator
 * injects nothing, so `traceparentOf` returns undefined and no message or row carries a trace.
 *
 * One reservation is one trace. Where the chain crosses an asynchronous boundary (a command stored
 * and sent later, the agent's load days after, a notification delivered by the dispatcher) the
 * W3C `traceparent` of the causing span travels with the data (protocol field, database column)
 * and the next span is its child: a parent keeps the whole chain in one trace, which a link would
 * not (docs/operations.md, "Tracing").
 */
import { type Context, ROOT_CONTEXT, type Span, type SpanOptions, SpanStatusCode, type Tracer, context, propagation, trace } from '@opentelemetry/api';

export const CLOUD_TRACER = 'parcel-locker-cloud';
export const AGENT_TRACER = 'parcel-locker-agent';

/** W3C trace-context header value: version-traceid-spanid-flags. */
export const TRACEPARENT_PATTERN = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

export function tracer(name: typeof CLOUD_TRACER | typeof AGENT_TRACER): Tracer {
  return trace.getTracer(name);
}

/** The `traceparent` of `ctx` (the active context by default); undefined when tracing is off or nothing is traced. */
export function traceparentOf(ctx: Context = context.active()): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent;
}

/** The context whose remote parent is `traceparent`; the root context when there is none. */
export function contextFrom(traceparent: string | null | undefined): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

/**
 * Runs `fn` inside a new span (child of `parent`, the active context by default), ends it, and
 * records a thrown error on it. With tracing off the span is the API's no-op.
 */
export async function inSpan<T>(
  t: Tracer,
  name: string,
  options: SpanOptions,
  parent: Context | undefined,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return t.startActiveSpan(name, options, parent ?? context.active(), async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}
