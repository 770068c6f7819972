/** Last reported online state of each lock board, so a restart does not report it twice. */
import type { Sqlite } from './database.js';

export class Boards {
  constructor(private readonly db: Sqlite) {}

  /** null: never reported. */
  online(bus: string, board: number): boolean | null {
    const row = this.db.prepare('select online from boards where bus = ? and board = ?').get(bus, board) as { online: number } | undefined;
    return row ? row.online === 1 : null;
  }

  set(bus: string, board: number, online: boolean): void {
    this.db
      .prepare('insert into boards (bus, board, online) values (?, ?, ?) on conflict (bus, board) do update set online = excluded.online')
      .run(bus, board, online ? 1 : 0);
  }

  offline(): { bus: string; board: number }[] {
    return this.db.prepare('select bus, board from boards where online = 0').all() as { bus: string; board: number }[];
  }
}
