/**
 * Turns tracing on for a process when the standard OTel variable OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set: a Node tracer provider exporting over OTLP/HTTP in
 * batches, the W3C trace-context propagator, and async-local context. Without the variable nothing
 * is registered and the API stays the no-op (tracing.ts). The endpoint is taken from the `env`
 * given (the entry point's); the exporter reads the other standard OTEL_EXPORTER_OTLP_* variables
 * (headers, timeout) from the process's environment itself.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { tracesUrl } from './tracing-env.js';

export interface Tracing {
  /** Flushes the spans still buffered and stops exporting. */
  shutdown(): Promise<void>;
}

/** Starts tracing for `serviceName` if the environment names an OTLP endpoint; null otherwise. */
export function startTracing(serviceName: string, env: Readonly<Record<string, string | undefined>>): Tracing | null {
  const url = tracesUrl(env);
  if (url === null) return null;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  provider.register();
  return { shutdown: () => provider.shutdown() };
}
