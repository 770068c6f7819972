/**
 * docs/openapi.json lints clean: `redocly lint` (recommended-strict, redocly.yaml) and
 * `spectral lint` (spectral:oas, .spectral.yaml) report no error and no warning. The rulesets
 * switch a rule off only with a reason written next to it.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const DOCUMENT = 'docs/openapi.json';
/** Redocly sends usage data and looks for updates unless told not to. */
const QUIET_ENV = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

/** stdout of a CLI that exits non-zero when it finds problems. */
async function output(command: string, args: string[]): Promise<string> {
  try {
    return (await run(command, args, { maxBuffer: 64 * 1024 * 1024, env: QUIET_ENV })).stdout;
  } catch (err) {
    const stdout = (err as { stdout?: string }).stdout;
    if (!stdout) throw err;
    return stdout;
  }
}

describe('the published OpenAPI document lints clean', () => {
  it('redocly lint: 0 errors, 0 warnings', async () => {
    const report = JSON.parse(await output('node_modules/.bin/redocly', ['lint', DOCUMENT, '--format', 'json'])) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string }[];
    };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('spectral lint (spectral:oas): 0 errors, 0 warnings', async () => {
    const results = JSON.parse(await output('node_modules/.bin/spectral', ['lint', DOCUMENT, '--format', 'json', '--quiet'])) as {
      code: string;
      message: string;
      path: string[];
    }[];
    expect(results.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`)).toEqual([]);
  });
});
