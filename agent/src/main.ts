/**
 * `npm run agent -- --config agent.json [--snapshot intent.json]` (or AGENT_CONFIG): runs one
 * locker's agent until SIGINT/SIGTERM. `--snapshot` seeds the cloud's intent (layout, orders,
 * grants) for a locker run without the cloud, e.g. against the simulator.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { snapshotSchema, type Snapshot } from '../../shared/src/protocol.js';
import { loggerOptions } from '../../shared/src/redact.js';
import { onStopSignals } from '../../shared/src/stop-signals.js';
import { AGENT_TRACER } from '../../shared/src/tracing.js';
import { checkTracingEnv, TracingSettingError } from '../../shared/src/tracing-env.js';
import { startTracingWhenConfigured } from '../../shared/src/tracing-start.js';
import { startAgent, type RunningAgent } from './agent.js';
import { runningRelease } from './updates/running-release.js';
import { ConfigError, loadAgentSettings, readJsonFile, type AgentSettings } from './config.js';

function loadSnapshot(argv: readonly string[]): Snapshot | undefined {
  const i = argv.indexOf('--snapshot');
  if (i < 0) return undefined;
  const path = argv[i + 1];
  if (!path) throw new ConfigError('--snapshot needs a file');
  const parsed = snapshotSchema.safeParse(readJsonFile(path, 'snapshot'));
  if (!parsed.success) {
    throw new ConfigError(`invalid snapshot ${path}:\n  ${parsed.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('\n  ')}`);
  }
  return parsed.data;
}

async function main(): Promise<void> {
  let settings: AgentSettings;
  let snapshot: Snapshot | undefined;
  try {
    const argv = process.argv.slice(2);
    settings = loadAgentSettings(argv, process.env);
    snapshot = loadSnapshot(argv);
    checkTracingEnv(process.env);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof TracingSettingError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const tracing = await startTracingWhenConfigured(AGENT_TRACER, process.env);
  const logger = pino(loggerOptions('agent', settings.logLevel));
  // The folder of this module: a release's slot (with its release.json) or the factory install.
  const release = runningRelease(dirname(fileURLToPath(import.meta.url)), settings.config.updates?.dir);
  const running: { agent?: RunningAgent } = {};
  let restarting = false;
  // A switched (or rolled back) version: stop cleanly and exit; the supervisor starts what `current` points to.
  const restart = (reason: string): void => {
    if (restarting) return;
    restarting = true;
    logger.info({ reason }, 'restarting for the supervisor');
    void (async () => {
      await running.agent?.stop().catch((err: unknown) => logger.error({ err }, 'stop failed'));
      await tracing?.shutdown();
      process.exit(0);
    })();
  };
  const agent = await startAgent(settings.config, { logger, snapshot, release, restart });
  running.agent = agent;
  process.stdout.write(`screen: ${agent.screenUrl}\n`);
  onStopSignals(async (signal) => {
    logger.info({ signal }, 'stopping');
    await agent.stop().catch((err: unknown) => {
      logger.error({ err }, 'stop failed');
      throw err;
    });
    await tracing?.shutdown();
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`agent failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
