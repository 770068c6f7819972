/**
 * The launcher's decisions over the releases directory (agent/src/launcher/launcher.ts), and the
 * locker's store across versions (agent/src/store/database.ts): a trial gets its starts and then
 * goes back; a missing slot falls back; the watchdog sends an overdue trial back; the store is
 * copied aside before a migration, an older agent runs on a newer store unless that store says
 * it cannot.
 */
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WATCHDOG_GRACE_MS, pick, revertIfOverdue, rollback } from '../../agent/src/launcher/launcher.js';
import { openSqlite, STORE_SCHEMA, StoreSchemaError } from '../../agent/src/store/database.js';
import { ReleaseDir, type Trial } from '../../agent/src/updates/release-dir.js';
import { runningRelease } from '../../agent/src/updates/running-release.js';

const OFFER = { rolloutId: 1, releaseId: 2, version: '2.0.0', sha256: 'a'.repeat(64), size: 100, healthWindowSeconds: 60 };

describe('the launcher', () => {
  let root: string;
  let dir: ReleaseDir;

  function slot(name: string | null, version: string): void {
    const d = dir.slotDir(name);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'main.js'), '');
    writeFileSync(join(d, 'release.json'), JSON.stringify({ version }));
  }

  function trial(attempts: number, deadline = Date.now() + 60_000): Trial {
    return { slot: 'v2', from: null, attempts, switchedAt: Date.now(), deadline, baseline: { link: true, boards: ['main/0'] }, offer: OFFER };
  }

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'launcher-'));
    dir = new ReleaseDir(join(root, 'releases'), join(root, 'dist', 'agent'));
    slot(null, '1.0.0');
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('starts the factory install when nothing else is there, through the current link', () => {
    expect(pick(dir, 3, Date.now())).toEqual({ slot: null, note: 'active' });
    expect(realpathSync(dir.currentLink)).toBe(realpathSync(dir.factory));
    // The agent started through it knows it may install releases, as the factory.
    expect(runningRelease(dir.factory, dir.root)).toMatchObject({ slot: null });
    expect(runningRelease(dir.factory, undefined)).toMatchObject({ slot: undefined });
  });

  it('gives a new version on trial its starts, then goes back to the one before', () => {
    slot('v2', '2.0.0');
    dir.writeState({ v: 1, active: null, previous: null, trial: trial(0), outcome: null });
    expect(pick(dir, 2, Date.now())).toMatchObject({ slot: 'v2', note: 'trial', attempt: 1 });
    expect(runningRelease(dir.slotDir('v2'), dir.root)).toMatchObject({ slot: 'v2' });
    expect(pick(dir, 2, Date.now())).toMatchObject({ slot: 'v2', note: 'trial', attempt: 2 });
    expect(pick(dir, 2, Date.now())).toEqual({ slot: null, note: 'reverted', reason: 'crash_loop' });
    const state = dir.readState();
    expect(state).toMatchObject({ active: null, trial: null, outcome: { state: 'rolled_back', reason: 'crash_loop', offer: OFFER } });
    expect(realpathSync(dir.currentLink)).toBe(realpathSync(dir.factory));
  });

  it('falls back to the slot before (or the factory) when the active one is gone', () => {
    slot('v1b', '1.5.0');
    dir.writeState({ v: 1, active: 'gone', previous: 'v1b', trial: null, outcome: null });
    expect(pick(dir, 3, Date.now())).toEqual({ slot: 'v1b', note: 'fallback' });
    dir.writeState({ v: 1, active: 'v1b', previous: null, trial: trial(0), outcome: null });
    // The trial's slot is gone too: back, at once.
    expect(pick(dir, 3, Date.now())).toMatchObject({ slot: null, note: 'reverted', reason: 'stage_failed' });
  });

  it('the watchdog sends a trial back only past its deadline and grace; OnFailure sends any trial back', () => {
    slot('v2', '2.0.0');
    const now = Date.now();
    dir.writeState({ v: 1, active: null, previous: null, trial: trial(1, now), outcome: null });
    expect(revertIfOverdue(dir, now + WATCHDOG_GRACE_MS - 1)).toBe(false);
    expect(revertIfOverdue(dir, now + WATCHDOG_GRACE_MS)).toBe(true);
    expect(dir.readState().outcome).toMatchObject({ state: 'rolled_back', reason: 'hung' });
    expect(rollback(dir, now)).toBe(false);
    dir.writeState({ v: 1, active: null, previous: null, trial: trial(1), outcome: null });
    expect(rollback(dir, now)).toBe(true);
    expect(dir.readState()).toMatchObject({ trial: null, outcome: { reason: 'crash_loop' } });
  });

  it('reads a missing or damaged state as nothing under way', () => {
    dir.ensure();
    writeFileSync(join(dir.root, 'state.json'), '{"v":1,"active":');
    expect(dir.readState()).toEqual({ v: 1, active: null, previous: null, trial: null, outcome: null });
    expect(dir.readJob()).toBeUndefined();
  });
});

describe("the locker's store across versions", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'store-compat-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const MIGRATIONS = ['create table meta (key text primary key, value text not null); create table a (x integer);', 'alter table a add column y integer;'];

  it('copies the store aside before a migration, keeping only the newest copy', () => {
    const path = join(root, 'agent.sqlite');
    openSqlite(path, MIGRATIONS.slice(0, 1)).close();
    const db = openSqlite(path, MIGRATIONS);
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    db.close();
    expect(readdirSync(root).filter((f) => f.endsWith('.bak'))).toEqual(['agent.sqlite.schema-1.bak']);
    const copy = new BetterSqlite3(join(root, 'agent.sqlite.schema-1.bak'), { readonly: true });
    expect(copy.pragma('user_version', { simple: true })).toBe(1);
    copy.close();
  });

  it('lets an older agent run on a store a newer one migrated, unless the newer one said it cannot', () => {
    const path = join(root, 'agent.sqlite');
    openSqlite(path, MIGRATIONS).close();
    // The previous version (one migration fewer) opens it as it is.
    const older = openSqlite(path, MIGRATIONS.slice(0, 1));
    expect(older.pragma('user_version', { simple: true })).toBe(2);
    older.close();
    // A store whose migrations older agents could not use.
    const breaking = join(root, 'breaking.sqlite');
    openSqlite(breaking, MIGRATIONS, 2).close();
    expect(() => openSqlite(breaking, MIGRATIONS.slice(0, 1))).toThrow(StoreSchemaError);
    expect(STORE_SCHEMA).toBeGreaterThanOrEqual(3);
  });
});
