/**
 * The cloud under fuzzing, as its own process: startCloud() configured from the environment like
 * `npm run cloud`, on a clock standing still at FUZZ_NOW (the fleet fixtures' dates), with a real
 * pino logger at "info" writing to /dev/null, so that logging hostile input costs what it costs
 * in production. Its own process, so that a stalled cloud shows as a request without an answer
 * while the suite's timers keep running. Writes `ready <url>` when listening.
 */
import { destination, pino } from 'pino';
import { startCloud } from '../../../cloud/src/cloud.js';
import { loadConfig } from '../../../cloud/src/config.js';
import { loggerOptions } from '../../../shared/src/redact.js';
import { ManualClock } from '../../cloud/helpers/manual-clock.js';

const clock = new ManualClock(process.env.FUZZ_NOW ?? '2030-03-04T09:00:00Z');
const logger = pino(loggerOptions('cloud', 'info'), destination({ dest: '/dev/null', sync: true }));
const cloud = await startCloud(loadConfig(process.env), { clock, logger });
process.stdout.write(`ready ${cloud.url}\n`);
