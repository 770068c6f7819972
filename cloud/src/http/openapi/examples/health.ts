/** Examples of /health. */
import type { OperationExamples } from './types.js';

export const healthExamples: Record<string, OperationExamples> = {
  getHealth: {
    success: 'The service answers and its database is reachable',
    requests: { ok: { summary: 'Health', status: 200 } },
    answers: { ok: { summary: 'Up, on SQLite', value: { status: 'ok', database: 'sqlite' } } },
  },
};
