/**
 * Whether the environment turns tracing on, and where spans go: the standard OTel variables
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_SDK_DISABLED. Kept apart
 * from the SDK (tracing-sdk.ts) so that a process can decide without loading it.
 *
 * The SDK itself falls back to a default, with a diagnostic nobody sees, on a value it does not
 * know; here every tracing variable the user gives is checked first and a wrong one stops the
 * process at start, naming it.
 */

/** The samplers the OTel specification names for OTEL_TRACES_SAMPLER (the SDK's built-in ones). */
const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];

/** A tracing variable with a value that would be ignored or misread. */
export class TracingSettingError extends Error {}

function checkUrl(env: Readonly<Record<string, string | undefined>>, name: string): void {
  const value = env[name];
  if (!value) return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TracingSettingError(`${name} must be an http:// or https:// URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TracingSettingError(`${name} must be an http:// or https:// URL (OTLP over HTTP), not ${url.protocol}`);
}

/** Throws TracingSettingError naming the first tracing variable whose value is not one the SDK would honour. */
export function checkTracingEnv(env: Readonly<Record<string, string | undefined>>): void {
  const disabled = env.OTEL_SDK_DISABLED;
  if (disabled && disabled !== 'true' && disabled !== 'false') throw new TracingSettingError('OTEL_SDK_DISABLED must be true or false');
  checkUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  checkUrl(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const sampler = env.OTEL_TRACES_SAMPLER;
  if (sampler && !SAMPLERS.includes(sampler)) throw new TracingSettingError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}`);
  const arg = env.OTEL_TRACES_SAMPLER_ARG;
  if (arg) {
    const ratio = Number(arg);
    if (!/^(0(\.\d{1,12})?|1(\.0{1,12})?)$/.test(arg) || !(ratio >= 0 && ratio <= 1)) throw new TracingSettingError('OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1 (the share of traces sampled)');
  }
}

/** The traces URL as the OTel specification derives it: the signal's own variable as is, else the base plus `/v1/traces`; null when tracing is off. Checks every tracing variable first. */
export function tracesUrl(env: Readonly<Record<string, string | undefined>>): string | null {
  checkTracingEnv(env);
  if (env.OTEL_SDK_DISABLED === 'true') return null;
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) return null;
  return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
}
