/** Courier access grants; only the hash of each access code is stored. */
import { courierGrantSchema, type CourierGrant } from '../../../shared/src/protocol.js';
import type { Sqlite } from './database.js';

interface GrantRow {
  grant_id: string;
  code_hash: string;
  valid_until: number;
  marketplace_ids: string;
  courier_ref: string;
}

function toGrant(r: GrantRow): CourierGrant {
  return courierGrantSchema.parse({
    grantId: r.grant_id,
    codeHash: r.code_hash,
    validUntil: r.valid_until,
    marketplaceIds: JSON.parse(r.marketplace_ids) as unknown,
    courierRef: r.courier_ref,
  });
}

export class Grants {
  constructor(private readonly db: Sqlite) {}

  upsert(g: CourierGrant): void {
    this.db
      .prepare(
        `insert into grants (grant_id, code_hash, valid_until, marketplace_ids, courier_ref) values (?, ?, ?, ?, ?)
         on conflict (grant_id) do update set code_hash = excluded.code_hash, valid_until = excluded.valid_until,
           marketplace_ids = excluded.marketplace_ids, courier_ref = excluded.courier_ref`,
      )
      .run(g.grantId, g.codeHash, g.validUntil, JSON.stringify(g.marketplaceIds), g.courierRef);
  }

  revoke(grantId: string): boolean {
    return this.db.prepare('delete from grants where grant_id = ?').run(grantId).changes > 0;
  }

  clear(): void {
    this.db.prepare('delete from grants').run();
  }

  get(grantId: string): CourierGrant | null {
    const row = this.db.prepare('select * from grants where grant_id = ?').get(grantId) as GrantRow | undefined;
    return row ? toGrant(row) : null;
  }

  all(): CourierGrant[] {
    return (this.db.prepare('select * from grants order by grant_id').all() as GrantRow[]).map(toGrant);
  }

  /** The grant this code hash opens at `now`: unexpired, the one valid longest if several. */
  valid(codeHash: string, now: number): CourierGrant | null {
    const row = this.db
      .prepare('select * from grants where code_hash = ? and valid_until > ? order by valid_until desc limit 1')
      .get(codeHash, now) as GrantRow | undefined;
    return row ? toGrant(row) : null;
  }

  /** Whether any grant, expired or not, has this code hash. */
  knows(codeHash: string): boolean {
    return this.db.prepare('select 1 from grants where code_hash = ? limit 1').get(codeHash) !== undefined;
  }

  /** Grants past their end are of no further use. */
  pruneExpired(now: number): void {
    this.db.prepare('delete from grants where valid_until <= ?').run(now);
  }
}
