/**
 * What `DATABASE_URL` may name: PostgreSQL (`postgres://`, `postgresql://`) or a SQLite file
 * (`sqlite:<path>`, `file:<path>`, each also as `sqlite:///abs/path`). Any other value is refused
 * at start rather than silently opening the default SQLite file.
 */
import { fileURLToPath } from 'node:url';

export const DATABASE_URL_EXPECTED = 'expected postgres://..., postgresql://..., sqlite:<path> or file:<path>';

export type DatabaseLocation = { engine: 'postgres'; url: string } | { engine: 'sqlite'; path: string };

export function isPostgresUrl(url: string | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//.test(url);
}

/** The SQLite file a `sqlite:`/`file:` URL names; undefined for any other value or an empty path. */
export function sqlitePathFromUrl(url: string): string | undefined {
  const m = /^(sqlite|file):(.*)$/s.exec(url);
  if (!m) return undefined;
  const rest = m[2]!;
  if (rest.includes('?') || rest.includes('#')) return undefined;
  if (rest.startsWith('//')) {
    // The authority form: only a local file (`///abs` or `//localhost/abs`).
    try {
      const path = fileURLToPath(`file:${rest}`);
      return path.length > 1 ? path : undefined;
    } catch {
      return undefined;
    }
  }
  return rest.length > 0 ? rest : undefined;
}

export function isDatabaseUrl(url: string): boolean {
  return isPostgresUrl(url) || sqlitePathFromUrl(url) !== undefined;
}

/** Where the database is: `databaseUrl` when given (already checked by the settings), else `sqlitePath`. */
export function databaseLocation(databaseUrl: string | undefined, sqlitePath: string | undefined): DatabaseLocation {
  if (databaseUrl === undefined || databaseUrl === '') return { engine: 'sqlite', path: sqlitePath ?? 'data/cloud.sqlite' };
  if (isPostgresUrl(databaseUrl)) return { engine: 'postgres', url: databaseUrl };
  const path = sqlitePathFromUrl(databaseUrl);
  if (path === undefined) throw new Error(`DATABASE_URL: ${DATABASE_URL_EXPECTED}`);
  return { engine: 'sqlite', path };
}
