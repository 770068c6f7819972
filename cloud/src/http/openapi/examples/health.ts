/** Examples of /health. */
import type { OperationExamples } from './types.js';

export const healthExamples: Record<string, OperationExamples> = {
  getHealth: {
    success: 'The service answers and its database is reachable',
    requests: { ok: { summary: 'Health', status: 200 } },
    answers: { ok: { summary: 'Up, on SQLite', value: { status: 'ok', database: 'sqlite' } } },
  },
  getReadiness: {
    success: 'Ready: the database answers, the broker link is connected (or this process runs none) and the fleet is loaded',
    statuses: { '503': 'Not ready: the body names the dependency that is down' },
    requests: { ready: { summary: 'Readiness', status: 200 } },
    answers: {
      ready: {
        summary: 'Ready, with no broker link in this process',
        value: { status: 'ready', checks: { database: { status: 'up', latencyMs: 0.4 }, broker: { status: 'disabled' }, fleet: { status: 'up', source: 'file' } } },
      },
      brokerDown: {
        status: 503,
        summary: 'The broker is unreachable',
        value: { status: 'not_ready', checks: { database: { status: 'up', latencyMs: 0.5 }, broker: { status: 'down' }, fleet: { status: 'up', source: 'file' } } },
      },
    },
  },
};
