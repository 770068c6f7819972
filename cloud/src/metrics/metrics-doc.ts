/**
 * The metric tables of docs/operations.md, generated from a prom-client registry (the cloud's and
 * the agent's): name, type, labels and meaning of each of the platform's own metrics. prom-client's
 * process metrics (`process_*`, `nodejs_*`) are left to its own documentation.
 */
import type { Registry } from 'prom-client';

interface Described {
  name: string;
  help: string;
  type?: string;
  labelNames?: readonly string[];
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

/** A markdown table of the registry's metrics whose names start with `prefix`, sorted by name. */
export function metricsTable(registry: Registry, prefix: string): string {
  const metrics = (registry.getMetricsAsArray() as unknown as Described[]).filter((m) => m.name.startsWith(prefix)).sort((a, b) => a.name.localeCompare(b.name));
  const rows = metrics.map((m) => {
    const labels = (m.labelNames ?? []).map((l) => `\`${l}\``).join(', ') || '—';
    return `| \`${m.name}\` | ${m.type ?? ''} | ${labels} | ${cell(m.help)} |`;
  });
  return ['| metric | type | labels | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
