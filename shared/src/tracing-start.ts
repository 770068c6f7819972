/**
 * Starts tracing only when the environment asks for it, loading the OpenTelemetry SDK (and its
 * exporter) on that condition alone: a process with tracing off, as a locker's agent usually is,
 * neither parses nor holds the SDK (docs/decisions.md, "Agent footprint").
 */
import { tracesUrl } from './tracing-env.js';
import type { Tracing } from './tracing-sdk.js';

export async function startTracingWhenConfigured(serviceName: string, env: Readonly<Record<string, string | undefined>>): Promise<Tracing | null> {
  if (tracesUrl(env) === null) return null;
  const { startTracing } = await import('./tracing-sdk.js');
  return startTracing(serviceName, env);
}
