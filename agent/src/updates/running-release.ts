/**
 * What the running agent is: its version (from the signed manifest staged beside its main module,
 * release.json, or the package version it was built with) and whether it was started through the
 * releases directory's `current` link (then it can install releases: the next start runs what
 * the link points to).
 */
import { readFileSync, realpathSync } from 'node:fs';
import { RELEASE_MANIFEST_FILE, releaseManifestSchema } from '../../../shared/src/release.js';
import { AGENT_VERSION } from '../vitals/vitals.js';
import { ReleaseDir } from './release-dir.js';
import type { RunningRelease } from './updater.js';

/** The version the module folder says it is. */
export function versionOf(moduleDir: string): string {
  try {
    const parsed = releaseManifestSchema.safeParse(JSON.parse(readFileSync(`${moduleDir}/${RELEASE_MANIFEST_FILE}`, 'utf8')));
    if (parsed.success) return parsed.data.version;
  } catch {
    // not started from a release: the build's own version
  }
  return AGENT_VERSION;
}

/**
 * `moduleDir`: the folder of the running main module. `releasesDir`: the config's `updates.dir`
 * (undefined: updates are off).
 */
export function runningRelease(moduleDir: string, releasesDir: string | undefined): RunningRelease {
  const version = versionOf(moduleDir);
  if (!releasesDir) return { version, slot: undefined };
  const dir = new ReleaseDir(releasesDir, moduleDir);
  const current = dir.current();
  if (!current || real(current) !== real(moduleDir)) return { version, slot: undefined };
  return { version, slot: dir.slotOf(moduleDir) };
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
