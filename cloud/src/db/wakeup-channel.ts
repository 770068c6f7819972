/**
 * A wake-up call between cloud processes on one PostgreSQL: LISTEN/NOTIFY on one channel, over a
 * connection of its own (a pooled connection would lose its LISTEN when returned). The payload
 * names the schema (installations and tests share a database) and the sending process, so a
 * process ignores its own calls. Calls carry no data: a lost one costs only latency, since the
 * receivers still poll their tables. A dropped connection is reopened after `reconnectMs`.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import pg from 'pg';

export interface WakeupChannelOptions {
  databaseUrl: string;
  /** The schema the process works in; calls from other schemas are not ours. */
  pgSchema: string | undefined;
  /** PostgreSQL channel name (an identifier). */
  channel: string;
  /** Another process of this schema called. */
  onWake: () => void;
  logger: Logger;
  reconnectMs?: number;
}

export interface WakeupChannel {
  /** Tells the other processes (after the caller's commit). Never throws. */
  announce(): Promise<void>;
  /** Resolves once the channel listens (tests). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export function openWakeupChannel(opts: WakeupChannelOptions): WakeupChannel {
  if (!/^[a-z_][a-z0-9_]*$/.test(opts.channel)) throw new Error(`invalid channel name: ${opts.channel}`);
  const self = randomUUID();
  const scope = opts.pgSchema ?? '';
  const log = opts.logger.child({ part: 'wakeup-channel', channel: opts.channel });
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;

  const connect = (): Promise<void> => {
    const c = new pg.Client({ connectionString: opts.databaseUrl });
    const lost = (err?: unknown): void => {
      if (client !== c) return;
      client = undefined;
      c.removeAllListeners('notification');
      void c.end().catch(() => undefined);
      if (closed) return;
      log.warn({ err }, 'wake-up channel lost; reconnecting (the poll covers the gap)');
      retry = setTimeout(() => void (connecting = connect()), opts.reconnectMs ?? 1000);
    };
    c.on('error', lost);
    c.on('end', () => lost());
    c.on('notification', (msg) => {
      const [schema, sender] = (msg.payload ?? '').split('|');
      if (schema === scope && sender !== self) opts.onWake();
    });
    client = c;
    return c
      .connect()
      .then(() => c.query(`listen ${opts.channel}`))
      .then(() => undefined)
      .catch((err: unknown) => lost(err));
  };
  connecting = connect();

  return {
    async announce() {
      const c = client;
      if (!c) return;
      try {
        await c.query('select pg_notify($1, $2)', [opts.channel, `${scope}|${self}`]);
      } catch (err) {
        log.warn({ err }, 'wake-up call not sent; the others find the rows at their next poll');
      }
    },
    async ready() {
      await connecting;
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await connecting;
      const c = client;
      client = undefined;
      if (c) await c.end().catch(() => undefined);
    },
  };
}
