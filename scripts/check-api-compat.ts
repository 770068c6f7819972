/**
 * `npm run check:api-compat`: fails when docs/openapi.json breaks a client of the published v4
 * document (docs/openapi/published/v4.json) without CHANGELOG.md's Unreleased section declaring
 * it. The rules: scripts/api-compat/compare.ts, in words in docs/compatibility.md.
 */
import { checkRepository, CURRENT_DOCUMENT, describe, PUBLISHED_DOCUMENT } from './api-compat/check.js';

const changes = checkRepository();
if (changes.length === 0) {
  process.stdout.write(`api compatibility: ${CURRENT_DOCUMENT} keeps every promise of ${PUBLISHED_DOCUMENT}\n`);
} else {
  process.stderr.write(`api compatibility: ${changes.length} undeclared breaking change(s) from ${PUBLISHED_DOCUMENT} to ${CURRENT_DOCUMENT}:\n`);
  for (const c of changes) process.stderr.write(`  ${describe(c)}\n`);
  process.exitCode = 1;
}
