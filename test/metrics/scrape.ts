/** Reading the Prometheus text format in tests, and `promtool check metrics` on it. */
import { spawnSync } from 'node:child_process';

/** The value of the sample `name{labels}` (labels matched as a subset); undefined when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = new Map([...(m[3] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) return Number(m[4]);
  }
  return undefined;
}

/**
 * prom-client's own process metrics whose names promtool's lint dislikes (gauges ending in
 * `_total`); they are the library's, kept as dashboards everywhere know them.
 */
const LIBRARY_NAMES = /^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/;

/** `promtool check metrics` (lint of names, types and help): its complaints, empty when none. */
export function promtoolProblems(text: string): string {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (r.error) throw r.error;
  return `${r.stdout}${r.stderr}`
    .split('\n')
    .filter((line) => line.trim() !== '' && !LIBRARY_NAMES.test(line.trim()))
    .join('\n');
}

export async function scrape(url: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
  return res.text();
}
