/** Keypad attempts (never the codes), kept so that a restart does not reset the back-off. */
import type { CodeKind } from '../../../shared/src/enums.js';
import type { Sqlite } from './database.js';

export class KeypadLog {
  constructor(private readonly db: Sqlite) {}

  record(kind: CodeKind, at: number, day: string, ok: boolean): void {
    this.db.prepare('insert into keypad_attempts (kind, at, day, ok) values (?, ?, ?, ?)').run(kind, at, day, ok ? 1 : 0);
  }

  /** Wrong codes of this kind since its last right one, and when the latest of them was typed. */
  failuresInRow(kind: CodeKind): { count: number; lastAt: number | null } {
    const row = this.db
      .prepare(
        `select count(*) as n, max(at) as last from keypad_attempts
         where kind = ? and ok = 0 and id > coalesce((select max(id) from keypad_attempts where kind = ? and ok = 1), 0)`,
      )
      .get(kind, kind) as { n: number; last: number | null };
    return { count: row.n, lastAt: row.last };
  }

  failuresOnDay(kind: CodeKind, day: string): number {
    const row = this.db.prepare('select count(*) as n from keypad_attempts where kind = ? and day = ? and ok = 0').get(kind, day) as { n: number };
    return row.n;
  }

  /** Marks the day's alarm as raised; false when it already was. */
  raiseAlarm(kind: CodeKind, day: string): boolean {
    return this.db.prepare('insert or ignore into keypad_alarms (kind, day) values (?, ?)').run(kind, day).changes === 1;
  }

  /** Alarm marks of days before `day` (YYYY-MM-DD): they only stop a second alarm on the same day. */
  pruneAlarms(day: string): number {
    return this.db.prepare('delete from keypad_alarms where day < ?').run(day).changes;
  }

  /** Attempts older than `before` no longer matter (the back-off resets within a day at most). */
  prune(before: number): void {
    this.db.prepare('delete from keypad_attempts where at < ?').run(before);
  }
}
