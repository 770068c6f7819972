/**
 * The operator's notification commands, run as `npx tsx cloud/src/cli.ts notifications ...`
 * against the database the cloud uses (DATABASE_URL / SQLITE_PATH / PG_SCHEMA, as the cloud):
 *   notifications failing|pending|delivered [--marketplace ID] [--order EXTERNAL_ID] [--limit N] [--json]
 *   notifications redeliver ID...
 *   notifications redeliver --failing [--marketplace ID]
 * A running cloud picks redelivered notifications up at its next poll.
 */
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { listNotifications, NOTIFICATION_STATUSES, redeliver, type NotificationStatus, type NotificationView } from './operator-store.js';

export const NOTIFICATIONS_USAGE =
  'notifications failing|pending|delivered [--marketplace ID] [--order EXTERNAL_ID] [--limit N] [--json] | notifications redeliver ID... | notifications redeliver --failing [--marketplace ID]';

interface Output {
  log(line: string): void;
  error(line: string): void;
}

function options(args: string[]): { flags: Map<string, string | true>; rest: string[] } {
  const flags = new Map<string, string | true>();
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) rest.push(a);
    else if (a === '--json' || a === '--failing') flags.set(a.slice(2), true);
    else flags.set(a.slice(2), args[++i] ?? '');
  }
  return { flags, rest };
}

const iso = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString());

function line(n: NotificationView): string {
  return [n.id, n.kind, n.marketplaceId, n.externalId ?? n.orderId, `attempts=${n.attempts}`, `last=${n.lastStatus ?? '-'}`, `failing=${iso(n.failingSince)}`, `next=${iso(n.nextAttemptAt)}`, n.lastError ?? ''].join('\t');
}

function text(v: string | true | undefined): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** Returns the process exit code. */
export async function runNotificationsCli(args: string[], env: Record<string, string | undefined>, out: Output = console): Promise<number> {
  const [command = '', ...tail] = args;
  const { flags, rest } = options(tail);
  const isList = (NOTIFICATION_STATUSES as readonly string[]).includes(command);
  const ids = rest.map(Number);
  if (!isList && !(command === 'redeliver' && (flags.get('failing') === true ? rest.length === 0 : ids.length > 0 && ids.every((n) => Number.isInteger(n) && n > 0)))) {
    out.error(`usage: cli.ts ${NOTIFICATIONS_USAGE}`);
    return 2;
  }
  const limit = Number(flags.get('limit') ?? 100);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) {
    out.error('--limit must be 1..10000');
    return 2;
  }
  const config = loadConfig(env);
  const cdb = await openDatabase({ databaseUrl: config.databaseUrl, sqlitePath: config.sqlitePath, pgSchema: config.pgSchema, poolSize: 1 });
  try {
    await cdb.migrate();
    const marketplaceId = text(flags.get('marketplace'));
    if (isList) {
      const rows = await listNotifications(cdb.db, { status: command as NotificationStatus, marketplaceId, orderExternalId: text(flags.get('order')), limit });
      if (flags.get('json') === true) out.log(JSON.stringify(rows, null, 2));
      else for (const r of rows) out.log(line(r));
      return 0;
    }
    const result = await redeliver(cdb, Date.now(), flags.get('failing') === true ? { failing: true, marketplaceId } : { ids });
    out.log(`due now: ${result.notifications} notifications of ${result.orders} orders`);
    return 0;
  } finally {
    await cdb.close();
  }
}
