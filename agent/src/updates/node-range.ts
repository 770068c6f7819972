/** Whether this Node.js satisfies a release's `node` range (the semver package's rules). */
import semver from 'semver';

export function nodeSatisfies(version: string, range: string): boolean {
  return semver.validRange(range) !== null && semver.satisfies(version, range, { includePrerelease: true });
}
