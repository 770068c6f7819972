/** `npm run agent -- --config agent.json` (or AGENT_CONFIG): runs one locker's agent until SIGINT/SIGTERM. */
import pino from 'pino';
import { loggerOptions } from '../../shared/src/redact.js';
import { startAgent } from './agent.js';
import { ConfigError, loadAgentConfig } from './config.js';

async function main(): Promise<void> {
  const logger = pino(loggerOptions('agent'));
  let config;
  try {
    config = loadAgentConfig(process.argv.slice(2), process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const agent = await startAgent(config, { logger });
  process.stdout.write(`screen: ${agent.screenUrl}\n`);
  const shutdown = (signal: string): void => {
    logger.info({ signal }, 'stopping');
    agent.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((err: unknown) => {
  process.stderr.write(`agent failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
