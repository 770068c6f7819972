/**
 * `npm ci` on the oldest Node the project supports warns about nothing: every installed package
 * accepts it (a package wanting a newer Node is pinned back with an `overrides` entry, as
 * fastify's light-my-request is for cookie 2, which wants Node 22).
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  engines?: { node?: string } | string[];
}

const project = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockEntry> };

describe('engines', () => {
  it('every package in the lock file accepts the oldest Node the project supports', () => {
    const oldest = semver.minVersion(project.engines.node);
    expect(oldest).not.toBeNull();
    const refusing = Object.entries(lock.packages)
      .map(([path, entry]) => ({ path, wants: Array.isArray(entry.engines) ? undefined : entry.engines?.node }))
      .filter((p): p is { path: string; wants: string } => p.wants !== undefined && !semver.satisfies(oldest!, p.wants))
      .map((p) => `${p.path} wants node ${p.wants}`);
    expect(refusing).toEqual([]);
  });
});
