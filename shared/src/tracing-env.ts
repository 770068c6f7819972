/**
 * Whether the environment turns tracing on, and where spans go: the standard OTel variables
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_SDK_DISABLED. Kept apart
 * from the SDK (tracing-sdk.ts) so that a process can decide without loading it.
 */

/** The traces URL as the OTel specification derives it: the signal's own variable as is, else the base plus `/v1/traces`; null when tracing is off. */
export function tracesUrl(env: Readonly<Record<string, string | undefined>>): string | null {
  if (env.OTEL_SDK_DISABLED === 'true') return null;
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) return null;
  return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
}
