/**
 * The cloud's services never build SQL: queries live in cloud/src/repositories/ (one module per
 * aggregate), cloud/src/db/ (connections, migrations, transactions) and the order lifecycle's
 * writer (cloud/src/lifecycle/repository.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = 'cloud/src';
const QUERY_HOMES = ['cloud/src/repositories/', 'cloud/src/db/', 'cloud/src/lifecycle/repository.ts'];

const QUERY = /\b(?:selectFrom|insertInto|updateTable|deleteFrom)\s*\(|\bsql\s*(?:<[^>`]*>)?\s*`|\bsql\.(?:raw|ref|id|lit|join|table|val)\s*\(/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [relative('.', path)] : [];
  });
}

/** The code without comments, so that a comment naming a query builder is no query. */
function code(path: string): string {
  return readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

function buildsSql(path: string): boolean {
  return QUERY.test(code(path));
}

describe('SQL lives in repositories', () => {
  const files = sourceFiles(ROOT);
  const outside = files.filter((f) => !QUERY_HOMES.some((home) => f === home || f.startsWith(home)));

  it('finds the query builders it looks for', () => {
    expect(files.filter(buildsSql).some((f) => f.startsWith('cloud/src/repositories/'))).toBe(true);
  });

  it('no file outside cloud/src/repositories/, cloud/src/db/ and the lifecycle writer builds SQL', () => {
    const offenders = outside.filter(buildsSql);
    expect(offenders).toEqual([]);
  });
});
