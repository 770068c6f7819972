/** Small named values (sequence numbers, counters, the locker's own settings) in the `meta` table. */
import type { Sqlite } from './database.js';

export class Meta {
  constructor(private readonly db: Sqlite) {}

  get(key: string): string | null {
    const row = this.db.prepare('select value from meta where key = ?').get(key) as { value: string } | undefined;
    return row?.value ?? null;
  }

  set(key: string, value: string): void {
    this.db.prepare('insert into meta (key, value) values (?, ?) on conflict (key) do update set value = excluded.value').run(key, value);
  }

  getNumber(key: string): number {
    const v = this.get(key);
    return v === null ? 0 : Number(v);
  }

  setNumber(key: string, value: number): void {
    this.set(key, String(value));
  }
}
