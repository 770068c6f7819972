/** The SQLite statement cache: the same SQL reuses one statement, the cache stays bounded, streams get their own. */
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { withStatementCache } from '../../cloud/src/db/sqlite-statement-cache.js';

interface Db {
  t: { id: number; name: string };
}

const open: BetterSqlite3.Database[] = [];
function setup(max?: number): { raw: BetterSqlite3.Database; db: Kysely<Db>; prepared: string[] } {
  const raw = new BetterSqlite3(':memory:');
  open.push(raw);
  const prepared: string[] = [];
  const prepare = raw.prepare.bind(raw);
  raw.prepare = ((text: string) => {
    prepared.push(text);
    return prepare(text);
  });
  raw.exec('create table t (id integer primary key, name text)');
  return { raw, db: new Kysely<Db>({ dialect: new SqliteDialect({ database: withStatementCache(raw, max) }) }), prepared };
}

afterEach(() => {
  for (const raw of open.splice(0)) if (raw.open) raw.close();
});

describe('the SQLite statement cache', () => {
  it('prepares a query once and answers each call with its own parameters', async () => {
    const { db, prepared } = setup();
    for (let i = 1; i <= 5; i++) await db.insertInto('t').values({ id: i, name: `n${i}` }).execute();
    const names: string[] = [];
    for (let i = 1; i <= 5; i++) names.push((await db.selectFrom('t').select('name').where('id', '=', i).executeTakeFirstOrThrow()).name);
    expect(names).toEqual(['n1', 'n2', 'n3', 'n4', 'n5']);
    expect(prepared.filter((p) => p.startsWith('insert'))).toHaveLength(1);
    expect(prepared.filter((p) => p.startsWith('select'))).toHaveLength(1);
  });

  it('keeps at most its bound, dropping the least recently used', async () => {
    const { db, prepared } = setup(2);
    const q = (n: number) => sql`select ${sql.lit(n)} as v`.execute(db);
    await q(1);
    await q(2);
    await q(1); // 1 is now the most recent; 3 evicts 2
    await q(3);
    await q(1);
    await q(2);
    expect(prepared).toEqual(['select 1 as v', 'select 2 as v', 'select 3 as v', 'select 2 as v']);
  });

  it('streams with a statement of its own, leaving the cached one usable', async () => {
    const { db } = setup();
    for (let i = 1; i <= 3; i++) await db.insertInto('t').values({ id: i, name: `n${i}` }).execute();
    const query = () => db.selectFrom('t').select('id').orderBy('id');
    expect(await query().execute()).toHaveLength(3);
    const seen: number[] = [];
    for await (const row of query().stream()) {
      seen.push(row.id);
      if (row.id === 2) break; // a stream left early must not leave the cached statement busy
    }
    expect(seen).toEqual([1, 2]);
    expect(await query().execute()).toHaveLength(3);
  });
});
