/**
 * The compatibility check: the breaking changes from the published document to the current one
 * that CHANGELOG.md's Unreleased section does not declare.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { declaredBreaking } from './changelog.js';
import { breakingChanges, RULES, type BreakingChange } from './compare.js';

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

export const PUBLISHED_DOCUMENT = 'docs/openapi/published/v4.json';
export const CURRENT_DOCUMENT = 'docs/openapi.json';
export const CHANGELOG = 'CHANGELOG.md';

/** The breaking changes `changelog` does not declare. */
export function undeclaredBreakingChanges(published: unknown, current: unknown, changelog: string): BreakingChange[] {
  const declared = declaredBreaking(changelog);
  return breakingChanges(published, current).filter((c) => !c.names.some((n) => declared.has(n)));
}

/** One line per change, saying what broke and under which name to declare it. */
export function describe(change: BreakingChange): string {
  return `${change.where}: ${RULES[change.rule]} [${change.rule}]; declare it as "- BREAKING: ${change.names.at(-1)!} ..."`;
}

/** The check on the repository's own files. */
export function checkRepository(): BreakingChange[] {
  const read = (path: string) => readFileSync(root(path), 'utf8');
  return undeclaredBreakingChanges(JSON.parse(read(PUBLISHED_DOCUMENT)), JSON.parse(read(CURRENT_DOCUMENT)), read(CHANGELOG));
}
