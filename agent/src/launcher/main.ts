/**
 * The launcher of the locker agent (docs/updates.md, "On the locker"), run by systemd around the
 * agent and never replaced by a release:
 *
 *   node dist/launcher/launcher.js pick                before each start (ExecStartPre): point releases/current
 *   node dist/launcher/launcher.js revert-if-overdue   the watchdog timer: exit 0 after sending an overdue trial back
 *   node dist/launcher/launcher.js rollback            OnFailure of the agent's unit: send a pending trial back
 *   node dist/launcher/launcher.js status              print the releases directory's state
 *
 * It reads the agent's config (AGENT_CONFIG or `--config`, with the same environment overrides) for
 * `updates.dir` and `updates.startAttempts`; without `updates` it points `current` (in `./releases`)
 * at the factory install: `--factory DIR`, or the folder it is in itself (dist/agent).
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { loggerOptions } from '../../../shared/src/redact.js';
import { ConfigError, loadAgentConfig } from '../config.js';
import { ReleaseDir } from '../updates/release-dir.js';
import { pick, revertIfOverdue, rollback } from './launcher.js';

const USAGE = 'usage: launcher.js pick|revert-if-overdue|rollback|status [--config agent.json] [--factory DIR]';

function argValue(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

function main(argv: readonly string[]): number {
  const command = argv[0] ?? '';
  const logger = pino(loggerOptions('launcher', process.env.LOG_LEVEL === 'silent' ? 'silent' : 'info'));
  let settings: { dir: string; startAttempts: number };
  try {
    const config = loadAgentConfig(argv, process.env);
    settings = { dir: config.updates?.dir ?? 'releases', startAttempts: config.updates?.startAttempts ?? 3 };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 2;
  }
  const factory = resolve(argValue(argv, '--factory') ?? dirname(fileURLToPath(import.meta.url)));
  const dir = new ReleaseDir(settings.dir, factory);
  const now = Date.now();
  switch (command) {
    case 'pick': {
      const d = pick(dir, settings.startAttempts, now);
      const line = { slot: d.slot ?? 'factory', attempt: d.attempt, reason: d.reason };
      if (d.note === 'reverted') logger.error(line, 'launcher: the new version did not confirm itself; starting the one before');
      else if (d.note === 'fallback') logger.warn(line, 'launcher: the active slot is missing; starting the one before');
      else logger.info(line, d.note === 'trial' ? 'launcher: starting a new version on trial' : 'launcher: starting the active version');
      return 0;
    }
    case 'revert-if-overdue':
      if (!revertIfOverdue(dir, now)) return 1;
      logger.error('launcher: a new version did not confirm itself by its deadline; going back to the one before');
      return 0;
    case 'rollback':
      if (rollback(dir, now)) logger.error('launcher: the agent keeps failing on trial; going back to the version before');
      return 0;
    case 'status':
      process.stdout.write(`${JSON.stringify({ current: dir.current() ?? null, ...dir.readState() }, null, 2)}\n`);
      return 0;
    default:
      process.stderr.write(`${USAGE}\n`);
      return 2;
  }
}

process.exitCode = main(process.argv.slice(2));
