/**
 * The commands a controller starts the agent with, read from the systemd unit
 * (deploy/systemd/locker-agent.service), so that the footprint bench and the tests of the built
 * agent run exactly what ships: the launcher before each start (ExecStartPre), then the Node flags
 * and the agent through the releases directory's `current` link (ExecStart), relative to the
 * install root.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function unitText(root: string): string {
  return readFileSync(join(root, 'deploy', 'systemd', 'locker-agent.service'), 'utf8');
}

function nodeArgs(unit: string, key: 'ExecStart' | 'ExecStartPre'): string[] {
  const line = new RegExp(`^${key}=/usr/bin/node (.+)$`, 'm').exec(unit)?.[1];
  if (!line) throw new Error(`deploy/systemd/locker-agent.service has no ${key}=/usr/bin/node ...`);
  return line.trim().split(/\s+/);
}

/** The arguments after `node` in the unit's ExecStart, e.g. ['--max-semi-space-size=1', ..., 'releases/current/main.js']. */
export function shippedAgentArgs(root: string): string[] {
  return nodeArgs(unitText(root), 'ExecStart');
}

/** The unit's Node flags with another script: a bench or test runs the bundle where it was built. */
export function shippedAgentCommand(root: string, script: string): string[] {
  return [...shippedAgentArgs(root).slice(0, -1), script];
}

/** The arguments after `node` in the unit's ExecStartPre: the launcher, e.g. ['dist/agent/launcher.js', 'pick']. */
export function shippedLauncherArgs(root: string): string[] {
  return nodeArgs(unitText(root), 'ExecStartPre');
}
