/**
 * The command a controller starts the agent with, read from the systemd unit
 * (deploy/systemd/locker-agent.service, ExecStart), so that the footprint bench and the test of the
 * built agent run exactly what ships: the Node flags and the bundle, relative to the install root.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The arguments after `node` in the unit's ExecStart, e.g. ['--max-semi-space-size=1', ..., 'dist/agent/main.js']. */
export function shippedAgentArgs(root: string): string[] {
  const unit = readFileSync(join(root, 'deploy', 'systemd', 'locker-agent.service'), 'utf8');
  const line = /^ExecStart=\/usr\/bin\/node (.+)$/m.exec(unit)?.[1];
  if (!line) throw new Error('deploy/systemd/locker-agent.service has no ExecStart=/usr/bin/node ...');
  return line.trim().split(/\s+/);
}
