/**
 * docs/api.md is runnable: its bash blocks are run in order, with curl, against a cloud process
 * started on the example fleet; every answer must carry the fields and result code shown under
 * its command.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CloudProcess, startCloudProcess } from './helpers/cloud-process.js';

const hasCurl = spawnSync('sh', ['-c', 'command -v curl'], { stdio: 'ignore' }).status === 0;
if (!hasCurl) console.warn('[skipped] docs/api.md check needs curl on PATH');

describe.runIf(hasCurl)('docs/api.md', () => {
  let dir: string;
  let cloud: CloudProcess;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cloud-doc-'));
    cloud = await startCloudProcess({ SQLITE_PATH: join(dir, 'cloud.sqlite'), FLEET_FILE: 'deploy/fleet.example.json' });
  });
  afterAll(async () => {
    await cloud?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs every command with the answers it shows', () => {
    const doc = readFileSync('docs/api.md', 'utf8');
    const blocks = [...doc.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks[0]).toContain('npm run cloud'); // the start command; the cloud runs already
    const script = blocks.slice(1).join('\n').replace('BASE=http://127.0.0.1:8080', `BASE=${cloud.url}`);
    const expected = script.split('\n').filter((line) => line.startsWith('# {'));
    const run = spawnSync('bash', ['-c', `set -eu\ncurl() { command curl "$@"; echo; echo '@@END@@'; }\n${script}`], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const answers = run.stdout.split('@@END@@\n').filter((a) => a.trim() !== '');
    expect(answers).toHaveLength(expected.length);
    answers.forEach((answer, i) => {
      const shown = expected[i]!;
      const actual: unknown = JSON.parse(answer);
      const text = JSON.stringify(actual);
      for (const [, key] of shown.matchAll(/"(\w+)":/g)) expect(text, `answer ${i + 1}: ${shown}`).toContain(`"${key}":`);
      const code = /"resultCode":(\d+)/.exec(shown)?.[1];
      expect((actual as { resultCode?: number }).resultCode, `answer ${i + 1}: ${shown}`).toBe(code === undefined ? undefined : Number(code));
    });
  });
});
