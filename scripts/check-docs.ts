/**
 * `npm run check:docs`: checks README.md and docs/*.md against the repository (paths, links,
 * anchors, named functions, no pointers outside it) and exits 1 with one line per problem.
 * Usage: tsx scripts/check-docs.ts [repository root, default: the current directory]
 */
import { resolve } from 'node:path';
import { checkDocs, docFiles } from './docs-check/check.js';

const root = resolve(process.argv[2] ?? '.');
const problems = checkDocs(root);
for (const p of problems) process.stderr.write(`${p.file}:${p.line}: ${p.message}\n`);
if (problems.length > 0) {
  process.stderr.write(`docs check: ${problems.length} problem(s)\n`);
  process.exit(1);
}
process.stdout.write(`docs check: ${docFiles(root).length} documents, every path, link and name they give exists\n`);
