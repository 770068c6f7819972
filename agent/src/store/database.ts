/**
 * The locker's SQLite file. WAL with synchronous=FULL: a committed load survives a power cut.
 * Migrations are numbered SQL steps tracked in `user_version`.
 *
 * Across a software update the store stays usable in both directions (docs/updates.md, "The
 * locker's store"): a migration adds what older agents ignore, so the previous version runs on a
 * store the new one migrated; before migrating, the file is copied aside (`<db>.schema-<n>.bak`).
 * A migration that older agents could not live with raises STORE_COMPATIBLE_FROM: the store
 * records it, an older agent refuses such a store, and an agent refuses a release whose store
 * would be out of its reach (the manifest's `store.compatibleFrom`).
 */
import BetterSqlite3 from 'better-sqlite3';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export type Sqlite = BetterSqlite3.Database;

const MIGRATIONS: string[] = [
  `
  create table meta (key text primary key, value text not null);

  -- Layout from the cloud plus what the locker knows about each cell.
  create table cells (
    id integer primary key,
    width integer not null,
    height integer not null,
    bus text not null,
    board integer not null,
    lock integer not null,
    -- flags as the cloud last sent them
    cloud_flags text not null default '[]',
    -- flags the locker raised itself and the cloud has not yet echoed back
    local_flags text not null default '[]',
    -- 0: dropped from the layout but still holding a parcel, kept until emptied
    in_layout integer not null default 1,
    door text not null default 'unknown' check (door in ('open', 'closed', 'unknown')),
    door_since integer,
    -- the door was opened by one of our operations (not unexpected)
    door_expected integer not null default 0,
    -- left_open already reported for this opening
    door_alarm integer not null default 0
  );

  -- The cloud's intent: one row per order, the whole OrderIntent as JSON.
  create table orders (
    order_id text primary key,
    marketplace_id text not null,
    state integer not null,
    pickup_code_hash text,
    -- order.remove (or a snapshot without it) arrived while parcels were still in cells
    removed integer not null default 0,
    intent text not null,
    updated_at integer not null
  );
  create index orders_pickup on orders (pickup_code_hash) where pickup_code_hash is not null;

  -- Every barcode a parcel answers to (its own and its additional ones).
  create table barcodes (
    code text not null,
    order_id text not null,
    parcel text not null,
    primary key (code, order_id, parcel)
  );
  create index barcodes_order on barcodes (order_id);

  -- The locker's physical facts: which parcel went into which cell and whether it was taken out.
  create table parcels (
    order_id text not null,
    barcode text not null,
    cell_id integer not null,
    state text not null check (state in ('in_cell', 'received', 'returned')),
    loaded_at integer not null,
    loaded_by text not null,
    taken_at integer,
    taken_by text,
    primary key (order_id, barcode)
  );
  create index parcels_in_cell on parcels (cell_id) where state = 'in_cell';

  create table grants (
    grant_id text primary key,
    code_hash text not null,
    valid_until integer not null,
    marketplace_ids text not null,
    courier_ref text not null
  );
  create index grants_code on grants (code_hash);

  -- Events for the cloud, numbered dseq without gaps (AUTOINCREMENT never reuses a number).
  create table outbox (
    dseq integer primary key autoincrement,
    at integer not null,
    body text not null
  );

  create table keypad_attempts (
    id integer primary key autoincrement,
    kind text not null,
    at integer not null,
    day text not null,
    ok integer not null
  );
  create index keypad_attempts_kind on keypad_attempts (kind, id);
  create table keypad_alarms (kind text not null, day text not null, primary key (kind, day));

  -- Physical operations under way: written before the pulse, resolved with the fact.
  create table journal (
    id integer primary key autoincrement,
    kind text not null check (kind in ('load', 'pickup', 'return')),
    cell_id integer not null,
    stage text not null check (stage in ('opening', 'open', 'aborted')),
    started_at integer not null,
    detail text not null
  );

  create table boards (
    bus text not null,
    board integer not null,
    online integer not null,
    primary key (bus, board)
  );
  `,
  `
  -- Highest dseq ever handed to the broker. A store that starts with this migration has sent
  -- nothing yet; one that already existed is taken to have sent all its events.
  insert into meta (key, value)
    select 'sent_dseq', coalesce((select seq from sqlite_sequence where name = 'outbox'), 0)
    where not exists (select 1 from meta where key = 'sent_dseq');
  `,
  `
  -- W3C traceparent of the command that last set the order's intent (only while tracing is on):
  -- the courier's load of the order joins that trace.
  alter table orders add column trace text;
  `,
  `
  -- Technicians' service codes from the cloud (service.code): only their hashes.
  create table service_codes (
    code_id text primary key,
    code_hash text not null,
    valid_until integer not null
  );
  create index service_codes_hash on service_codes (code_hash);
  `,
];

/** The store's schema: how many migrations this agent knows. */
export const STORE_SCHEMA = MIGRATIONS.length;
/**
 * The oldest schema whose agents can still use a store of STORE_SCHEMA. Raise it (to this
 * schema) with a migration that breaks what older agents read or write.
 */
export const STORE_COMPATIBLE_FROM = 1;

export class StoreSchemaError extends Error {
  override readonly name = 'StoreSchemaError';
}

export function openSqlite(path: string, migrations: readonly string[] = MIGRATIONS, compatibleFrom = STORE_COMPATIBLE_FROM): Sqlite {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new BetterSqlite3(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // better-sqlite3 builds SQLite with a 16 MB page cache per connection; a locker's store (a few
  // thousand rows, read by index) is served as well by SQLite's own default of 2 MiB, and the cache
  // would otherwise grow into the controller's memory as the file does. No memory-mapped I/O
  // (mmap_size stays 0): mapped pages would count against the controller as well.
  db.pragma('cache_size = -2048');
  useIncrementalVacuum(db, path);
  try {
    migrate(db, path, migrations, compatibleFrom);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/**
 * Pages freed by the retention sweep go back to the file system (`pragma incremental_vacuum`),
 * so the file shrinks on a controller's small flash instead of only ever growing. The mode must be
 * set before the first table, or be followed by one VACUUM for a file made without it.
 */
function useIncrementalVacuum(db: Sqlite, path: string): void {
  const INCREMENTAL = 2;
  if (db.pragma('auto_vacuum', { simple: true }) === INCREMENTAL) return;
  db.pragma('auto_vacuum = INCREMENTAL');
  if (path !== ':memory:' && (db.pragma('page_count', { simple: true }) as number) > 0) db.exec('VACUUM');
}

/** Gives up to `pages` free pages back to the file system; the file shrinks by that much. */
export function releaseFreePages(db: Sqlite, pages = 1_000): void {
  db.pragma(`incremental_vacuum(${pages})`);
}

function migrate(db: Sqlite, path: string, migrations: readonly string[], compatibleFrom: number): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > migrations.length) {
    // A newer agent's store (this one was rolled back to): usable unless that agent said otherwise.
    const row = db.prepare("select value from meta where key = 'compatible_from'").get() as { value: string } | undefined;
    const needs = Number(row?.value ?? 1);
    if (needs > migrations.length) {
      throw new StoreSchemaError(
        `the store ${path} has schema ${version}, which agents before schema ${needs} cannot use (this one knows ${migrations.length}); ` +
          `start the newer agent again, or restore a copy kept beside it (${basename(path)}.schema-<n>.bak)`,
      );
    }
    return;
  }
  if (version === migrations.length) return;
  if (version > 0 && path !== ':memory:') backUp(db, path, version);
  for (let v = version; v < migrations.length; v++) {
    db.transaction(() => {
      db.exec(migrations[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  db.prepare("insert into meta (key, value) values ('compatible_from', ?) on conflict (key) do update set value = excluded.value").run(String(compatibleFrom));
}

/** A consistent copy of the store before it is migrated from `schema`; only the newest copy is kept. */
function backUp(db: Sqlite, path: string, schema: number): void {
  const dir = dirname(path);
  const name = basename(path);
  const target = join(dir, `${name}.schema-${schema}.bak`);
  rmSync(target, { force: true });
  db.prepare('vacuum into ?').run(target);
  for (const entry of readdirSync(dir)) {
    if (entry.startsWith(`${name}.schema-`) && entry.endsWith('.bak') && join(dir, entry) !== target && existsSync(join(dir, entry))) rmSync(join(dir, entry), { force: true });
  }
}
