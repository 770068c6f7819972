/**
 * One locker's agent of a fault-suite run, as its own process: startAgent() with the config file
 * given as the first argument, on the run's shared clock. Its link hooks append every command and
 * snapshot it applies to FAULT_APPLIED (one JSON line each, written right after the commit, so the
 * checker sees every life of the agent), and hold the crash points the test arms over IPC.
 * Writes `ready <screen url>` when up.
 */
import { appendFileSync } from 'node:fs';
import { startAgent } from '../../agent/src/agent.js';
import { parseAgentConfig, readJsonFile } from '../../agent/src/config.js';
import { type AppliedLine, CrashSwitch, READY, digest, fileLogger, sharedClock } from './child-support.js';

const env = process.env;
const recordFile = env.FAULT_APPLIED;
if (!recordFile || !process.argv[2]) throw new Error('usage: agent-entry.ts CONFIG (FAULT_APPLIED set)');
const record = (line: Omit<AppliedLine, 'pid'>): void => appendFileSync(recordFile, `${JSON.stringify({ pid: process.pid, ...line })}\n`);
const crash = new CrashSwitch();
let appliedSinceAck = 0;

const config = parseAgentConfig(readJsonFile(process.argv[2], 'config'));
const agent = await startAgent(config, {
  clock: sharedClock(env),
  logger: fileLogger(`agent-${config.lockerId}`, env),
  link: {
    hooks: {
      afterApply(command, result) {
        record({ kind: 'command', cseq: command.cseq, status: result.status, type: command.type, digest: digest(command) });
        if (result.status === 'applied') appliedSinceAck++;
      },
      afterSnapshot(snapshot, result) {
        record({ kind: 'snapshot', cseq: snapshot.cseq, status: result.status });
      },
      beforePublish(message) {
        if (message.type === 'events') {
          crash.pass('agent:events-committed', { from: message.items[0]?.dseq, to: message.items.at(-1)?.dseq });
        } else if (message.type === 'ack') {
          if (appliedSinceAck > 0) crash.pass('agent:commands-applied', { appliedCseq: message.appliedCseq });
          appliedSinceAck = 0;
        }
      },
    },
  },
});
process.stdout.write(`${READY} ${agent.screenUrl}\n`);
process.once('SIGTERM', () => {
  agent.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
