/**
 * `npm run fuzz -- --runs N [--seed S] [--engine sqlite|postgres] [--op TEXT] [--timeout MS]
 * [--max-huge-bytes B]`: the fuzz suite's core with more requests per operation. `--op` picks the
 * operations whose "METHOD /path" contains the text; `--max-huge-bytes` caps the huge strings
 * (default 3 MiB; they also stay below the body limit) and the oversize bodies. Prints, per operation, the outcomes
 * (HTTP status and resultCode) per input class and every broken rule with an example request and
 * the command that reproduces it. Exits 1 when a rule was broken. PostgreSQL needs DATABASE_URL.
 */
import { parseArgs } from 'node:util';
import { type FuzzSession, type OperationResult, failureReport, startFuzzSession } from './fuzz/fuzz-session.js';

const USAGE = 'usage: npm run fuzz -- --runs N [--seed S] [--engine sqlite|postgres] [--op TEXT] [--timeout MS] [--max-huge-bytes B]';

function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, not "${text}"\n${USAGE}`);
  return n;
}

function table(result: OperationResult): string {
  const outcomes = [...result.outcomes.keys()].sort();
  const inputs = [...result.byInput.keys()].sort();
  const first = Math.max(12, ...inputs.map((i) => i.length)) + 2;
  const widths = outcomes.map((o) => o.length + 3);
  const row = (name: string, counts: (number | undefined)[]): string =>
    name.padEnd(first) + counts.map((n, i) => String(n ?? '').padStart(widths[i]!)).join('');
  const keys = [...result.byAuth].map(([k, n]) => `${k} ${n}`).join(', ');
  return [
    `${result.op}  (seed ${result.seed}; keys: ${keys}; slowest answer ${result.slowestMs} ms)`,
    'input'.padEnd(first) + outcomes.map((o, i) => o.padStart(widths[i]!)).join(''),
    ...inputs.map((input) => row(input, outcomes.map((o) => result.byInput.get(input)?.get(o)))),
    row('all', outcomes.map((o) => result.outcomes.get(o))),
  ].join('\n');
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string' },
      seed: { type: 'string' },
      engine: { type: 'string', default: 'sqlite' },
      op: { type: 'string' },
      timeout: { type: 'string' },
      'max-huge-bytes': { type: 'string' },
    },
  });
  if (values.engine !== 'sqlite' && values.engine !== 'postgres') throw new Error(`--engine must be sqlite or postgres\n${USAGE}`);
  if (values.engine === 'postgres' && !process.env.DATABASE_URL) throw new Error('--engine postgres needs DATABASE_URL');
  const runs = positive('runs', values.runs, 200);
  const seed = positive('seed', values.seed, Date.now() % 2 ** 31);
  const settings = {
    engine: values.engine,
    seed,
    timeoutMs: positive('timeout', values.timeout, 15_000),
    maxHugeBytes: positive('max-huge-bytes', values['max-huge-bytes'], 3 * 1024 * 1024),
  } as const;
  console.log(`fuzzing on ${settings.engine}, seed ${seed}, ${runs} requests per operation`);
  let session: FuzzSession | undefined;
  let broken = 0;
  try {
    session = await startFuzzSession(settings);
    const chosen = session.operations.filter((op) => values.op === undefined || op.id.includes(values.op));
    if (chosen.length === 0) throw new Error(`no operation matches --op ${values.op}`);
    for (const op of chosen) {
      const result = await session.fuzz(op, runs);
      console.log(`\n${table(result)}`);
      if (result.failures.length > 0) {
        broken += result.failures.length;
        console.log(failureReport(result, settings.engine, seed));
      }
    }
  } finally {
    await session?.stop();
  }
  console.log(`\n${broken === 0 ? 'no rule broken' : `${broken} broken rule(s) (per operation and input class)`}; seed ${seed}`);
  return broken === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(2);
  },
);
