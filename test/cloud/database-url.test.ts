import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../cloud/src/db/database.js';
import { loadCloudSettings } from '../../cloud/src/settings.js';

describe('DATABASE_URL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dburl-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['sqlite:', (p: string) => `sqlite:${p}`],
    ['file:', (p: string) => `file:${p}`],
    ['file:///', (p: string) => pathToFileURL(p).href],
    ['sqlite:///', (p: string) => pathToFileURL(p).href.replace(/^file:/, 'sqlite:')],
  ])('a %s URL opens the SQLite file it names', async (_, url) => {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.sqlite`);
    const { config } = loadCloudSettings({ DATABASE_URL: url(file) });
    const cdb = await openDatabase({ databaseUrl: config.databaseUrl, sqlitePath: config.sqlitePath });
    try {
      expect(cdb.engine).toBe('sqlite');
      expect(existsSync(file)).toBe(true);
    } finally {
      await cdb.close();
    }
  });

  it.each(['mysql://u@h/db', 'sqlite:', 'file://otherhost/x.sqlite', 'sqlite:/x.sqlite?mode=ro', '/tmp/x.sqlite', 'postgres:/no-slashes'])(
    'refuses %s at start, naming the variable',
    (url) => {
      expect(() => loadCloudSettings({ DATABASE_URL: url })).toThrow(/DATABASE_URL \(databaseUrl\): expected postgres:\/\//);
    },
  );

  it('keeps postgres:// and postgresql://', () => {
    expect(loadCloudSettings({ DATABASE_URL: 'postgresql://u@h/db' }).config.databaseUrl).toBe('postgresql://u@h/db');
    expect(loadCloudSettings({ DATABASE_URL: 'postgres://u@h/db' }).config.databaseUrl).toBe('postgres://u@h/db');
  });
});
