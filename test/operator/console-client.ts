/** A small console client for the operator tests: the session cookie and the CSRF token, like a browser. */
import { createHash } from 'node:crypto';
import type { FleetInput } from '../../cloud/src/fleet/fleet-schema.js';
import { KEYS, testFleet } from '../cloud/helpers/fleet-fixtures.js';

export const VIEWER_KEY = 'test-viewer-key';

/** The test fleet with a viewer beside the operator `ops`. */
export function consoleFleet(): FleetInput {
  const fleet = testFleet();
  return {
    ...fleet,
    operators: [
      { name: 'ops', apiKeySha256: [createHash('sha256').update(KEYS.operator).digest('hex')] },
      { name: 'watcher', role: 'viewer', apiKeySha256: [createHash('sha256').update(VIEWER_KEY).digest('hex')] },
    ],
  };
}

export interface ConsoleAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers loosely
  body: any;
  headers: Headers;
}

export class ConsoleClient {
  cookie: string | undefined;
  csrfToken: string | undefined;

  constructor(private readonly baseUrl: string) {}

  async signIn(key: string): Promise<ConsoleAnswer> {
    const answer = await this.call('POST', '/operator/session', { body: { key } });
    const setCookie = answer.headers.get('set-cookie');
    if (answer.status === 200 && setCookie) {
      this.cookie = setCookie.split(';')[0];
      this.csrfToken = answer.body.csrfToken as string;
    }
    return answer;
  }

  async call(method: string, path: string, opts: { body?: unknown; csrf?: string | null } = {}): Promise<ConsoleAnswer> {
    const headers: Record<string, string> = {};
    if (this.cookie) headers.cookie = this.cookie;
    const csrf = opts.csrf === undefined ? this.csrfToken : opts.csrf;
    if (csrf && method !== 'GET') headers['x-csrf-token'] = csrf;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: res.status, body, headers: res.headers };
  }
}
