/** Technicians' service codes (command `service.code`); only the hash of each code is stored. */
import type { Sqlite } from './database.js';

export interface ServiceCode {
  codeId: string;
  codeHash: string;
  validUntil: number;
}

interface Row {
  code_id: string;
  code_hash: string;
  valid_until: number;
}

const toCode = (r: Row): ServiceCode => ({ codeId: r.code_id, codeHash: r.code_hash, validUntil: r.valid_until });

export class ServiceCodes {
  constructor(private readonly db: Sqlite) {}

  upsert(c: ServiceCode): void {
    this.db
      .prepare(
        `insert into service_codes (code_id, code_hash, valid_until) values (?, ?, ?)
         on conflict (code_id) do update set code_hash = excluded.code_hash, valid_until = excluded.valid_until`,
      )
      .run(c.codeId, c.codeHash, c.validUntil);
  }

  get(codeId: string): ServiceCode | null {
    const row = this.db.prepare('select * from service_codes where code_id = ?').get(codeId) as Row | undefined;
    return row ? toCode(row) : null;
  }

  /** The code this hash names at `now`: unexpired, the one valid longest if several. */
  valid(codeHash: string, now: number): ServiceCode | null {
    const row = this.db
      .prepare('select * from service_codes where code_hash = ? and valid_until > ? order by valid_until desc limit 1')
      .get(codeHash, now) as Row | undefined;
    return row ? toCode(row) : null;
  }

  /** A code this hash names whatever its time (to tell an expired code from a wrong one). */
  known(codeHash: string): ServiceCode | null {
    const row = this.db.prepare('select * from service_codes where code_hash = ? order by valid_until desc limit 1').get(codeHash) as Row | undefined;
    return row ? toCode(row) : null;
  }

  /** Codes over before `before` no longer matter. */
  prune(before: number): number {
    return this.db.prepare('delete from service_codes where valid_until < ?').run(before).changes;
  }
}
