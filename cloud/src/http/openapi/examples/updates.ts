/**
 * Examples of the /operator software-update operations (docs/updates.md). The example fleet's cloud
 * trusts no signing key (RELEASE_PUBLIC_KEYS unset), so the run sends what it can answer there
 * (empty lists, refusals, the fleet's agent versions) and shows a release and a rollout as a cloud
 * with a key answers them, without sending those requests.
 */
import type { OperationExamples } from './types.js';

const NEEDS_KEY = 'needs a release signed by a key of RELEASE_PUBLIC_KEYS, which the example fleet’s cloud does not trust';

const release = {
  id: 1,
  version: '1.4.0',
  minProtocol: 1,
  rollbackFrom: [],
  keyId: 'ops-2030',
  sha256: '9f2c1b7e5d3a4c6b8e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7',
  size: 4_821_337,
  files: 212,
  notes: 'Board vendor’s new firmware quirk; faster screen start',
  createdAt: '2030-03-04T08:30:00.000Z',
  createdBy: 'ops',
};

const rollout = {
  id: 1,
  release,
  target: { kind: 'city', city: 'Москва' },
  waves: [1, 10, 50, 100],
  soakSeconds: 1800,
  healthWindowSeconds: 600,
  maxFailurePercent: 5,
  state: 'running',
  haltReason: null,
  rollbackOf: null,
  createdAt: '2030-03-04T09:00:00.000Z',
  createdBy: 'ops',
  updatedAt: '2030-03-04T09:00:00.000Z',
  wave: { current: 1, of: 4, startedAt: '2030-03-04T09:00:00.000Z', settledAt: null },
  lockers: { total: 2, byState: { offered: 1, pending: 1 }, waves: [{ wave: 1, total: 1, byState: { offered: 1 } }, { wave: 2, total: 1, byState: { pending: 1 } }] },
};

const noRollout = { status: 404, summary: 'No such rollout', value: { message: 'Неверный формат запроса: rollout 999 not found', resultCode: 3 } };
const reason = 'Door sensors misread on the new release; stop until the vendor answers';
const emptyPage = { items: [], total: 0, page: 1, pageSize: 50 };

/** pause, resume and abort: the same shape, another verb. */
function rolloutAction(verb: 'pause' | 'resume' | 'abort', summary: string, state: string): OperationExamples {
  return {
    success: `The rollout after the ${verb}`,
    requests: {
      [verb]: { summary, params: { rolloutId: 1 }, body: { reason }, status: 200, notSent: NEEDS_KEY },
      unknown: { summary: 'A rollout that does not exist', params: { rolloutId: 999 }, body: { reason }, status: 404, answer: 'noRollout' },
    },
    answers: {
      [verb]: { summary: `The rollout, ${state}`, value: { ...rollout, state, updatedAt: '2030-03-04T09:20:00.000Z' } },
      noRollout,
      wrongState: { status: 409, summary: 'Not in a state that allows it', value: { message: `Неверный формат запроса: rollout 1 is finished; it cannot ${verb}`, resultCode: 3 } },
    },
  };
}

export const updateExamples: Record<string, OperationExamples> = {
  listReleases: {
    success: 'A page of the signed releases, newest first',
    requests: {
      none: { summary: 'The releases of a cloud that has none yet', status: 200 },
      some: { summary: 'The releases after an upload', status: 200, notSent: NEEDS_KEY },
    },
    answers: { none: { summary: 'No release uploaded', value: emptyPage }, some: { summary: 'One release', value: { items: [release], total: 1, page: 1, pageSize: 50 } } },
  },
  uploadRelease: {
    success: 'The release, stored (201) or uploaded before (200)',
    requests: {
      untrusted: { summary: 'An upload to a cloud that trusts no signing key', body: { artifact: 'UExBVEZPUk0=', reason: 'Release 1.4.0' }, status: 400, answer: 'noKey' },
      signed: { summary: 'A signed artifact (base64 of the file `cli.ts release sign` wrote)', body: { artifact: 'UExBVEZPUk0=', reason: 'Release 1.4.0' }, status: 201, notSent: NEEDS_KEY },
    },
    answers: {
      noKey: { status: 400, summary: 'No key to check it with', value: { message: 'Неверный формат запроса: this cloud trusts no release signing key: set RELEASE_PUBLIC_KEYS', resultCode: 3 } },
      signed: { status: 201, summary: 'Stored', value: release },
      again: { status: 200, summary: 'The same artifact was uploaded before', value: release },
    },
  },
  getRelease: {
    success: 'The release with its signed manifest',
    requests: {
      one: { summary: 'Release 1', params: { releaseId: 1 }, status: 200, notSent: NEEDS_KEY },
      unknown: { summary: 'A release that does not exist', params: { releaseId: 999 }, status: 404, answer: 'noRelease' },
    },
    answers: {
      one: {
        summary: 'Release 1.4.0',
        value: { ...release, manifest: { version: '1.4.0', minProtocol: 1, files: [{ path: 'main.js', size: 912_448, sha256: '3b1f0c9d2e4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e' }] } },
      },
      noRelease: { status: 404, summary: 'No such release', value: { message: 'Неверный формат запроса: release 999 not found', resultCode: 3 } },
    },
  },
  listRollouts: {
    success: 'A page of the rollouts, newest first',
    requests: {
      none: { summary: 'The running rollouts of a cloud that has none', query: { state: 'running' }, status: 200 },
      some: { summary: 'Every rollout', status: 200, notSent: NEEDS_KEY },
    },
    answers: { none: { summary: 'None', value: emptyPage }, some: { summary: 'One rollout in its first wave', value: { items: [rollout], total: 1, page: 1, pageSize: 50 } } },
  },
  createRollout: {
    success: 'The rollout, created: its first wave is offered at the next tick',
    requests: {
      city: {
        summary: 'Release 1 to the lockers of Moscow in four waves',
        body: { releaseId: 1, target: { kind: 'city', city: 'Москва' }, waves: [1, 10, 50, 100], soakSeconds: 1800, healthWindowSeconds: 600, maxFailurePercent: 5, reason: 'Release 1.4.0 to Moscow' },
        status: 201,
        notSent: NEEDS_KEY,
      },
      unknown: { summary: 'A release that does not exist', body: { releaseId: 999, target: { kind: 'all' } }, status: 404, answer: 'noRelease' },
    },
    answers: {
      city: { status: 201, summary: 'Created', value: rollout },
      noRelease: { status: 404, summary: 'No such release', value: { message: 'Неверный формат запроса: release 999 not found', resultCode: 3 } },
      busy: { status: 409, summary: 'A locker of the target is in an unfinished rollout', value: { message: 'Неверный формат запроса: locker 101 is in rollout 1, which is not finished', resultCode: 3 } },
    },
  },
  getRollout: {
    success: 'The rollout with its waves and its lockers by state',
    requests: {
      one: { summary: 'Rollout 1', params: { rolloutId: 1 }, status: 200, notSent: NEEDS_KEY },
      unknown: { summary: 'A rollout that does not exist', params: { rolloutId: 999 }, status: 404, answer: 'noRollout' },
    },
    answers: { one: { summary: 'In its first wave', value: rollout }, noRollout },
  },
  listRolloutLockers: {
    success: "A page of the rollout's lockers in their order",
    requests: {
      firstWave: { summary: 'The lockers of the first wave', params: { rolloutId: 1 }, query: { wave: 1 }, status: 200, notSent: NEEDS_KEY },
      unknown: { summary: 'A rollout that does not exist', params: { rolloutId: 999 }, status: 404, answer: 'noRollout' },
    },
    answers: {
      firstWave: {
        summary: 'One locker, offered the release',
        value: {
          items: [
            {
              lockerId: 101,
              name: 'Постамат Тверская 7',
              online: true,
              wave: 1,
              state: 'offered',
              reason: null,
              bytes: null,
              agentVersion: '1.3.2',
              offeredAt: '2030-03-04T09:00:05.000Z',
              switchedAt: null,
              finishedAt: null,
            },
          ],
          total: 1,
          page: 1,
          pageSize: 50,
        },
      },
      noRollout,
    },
  },
  pauseRollout: rolloutAction('pause', 'Pause rollout 1', 'paused'),
  resumeRollout: rolloutAction('resume', 'Resume rollout 1', 'running'),
  abortRollout: rolloutAction('abort', 'Abort rollout 1', 'aborted'),
  rollbackRollout: {
    success: 'The rollback rollout, created; the rollout it takes back is aborted',
    requests: {
      back: { summary: 'Take rollout 1’s lockers back with signed rollback release 2', params: { rolloutId: 1 }, body: { releaseId: 2, reason }, status: 201, notSent: NEEDS_KEY },
      unknown: { summary: 'A rollout that does not exist', params: { rolloutId: 999 }, body: { releaseId: 2, reason }, status: 404, answer: 'noRollout' },
    },
    answers: {
      back: {
        status: 201,
        summary: 'Every locker rollout 1 updated, in one wave',
        value: {
          ...rollout,
          id: 2,
          release: { ...release, id: 2, version: '1.3.3', rollbackFrom: ['1.4.0'], notes: 'Rollback of 1.4.0' },
          target: { kind: 'lockers', lockerIds: [101] },
          waves: [100],
          soakSeconds: 0,
          rollbackOf: 1,
          wave: { current: 1, of: 1, startedAt: '2030-03-04T09:20:00.000Z', settledAt: null },
          lockers: { total: 1, byState: { offered: 1 }, waves: [{ wave: 1, total: 1, byState: { offered: 1 } }] },
          createdAt: '2030-03-04T09:20:00.000Z',
          updatedAt: '2030-03-04T09:20:00.000Z',
        },
      },
      noRollout,
      busy: { status: 409, summary: 'Its lockers are in another unfinished rollout', value: { message: 'Неверный формат запроса: locker 101 is in rollout 3, which is not finished', resultCode: 3 } },
    },
  },
  listAgents: {
    success: "A page of the active lockers with their agents' versions, and how many lockers run each version",
    requests: { fleet: { summary: 'The example fleet, whose lockers have not said their version yet', query: { pageSize: 2 }, status: 200 } },
    answers: {
      fleet: {
        summary: 'No locker has connected',
        value: {
          items: [
            { lockerId: 101, name: 'Постамат Тверская 7', online: false, version: null, updates: null, reportedAt: null },
            { lockerId: 102, name: 'Постамат Ленинский 45', online: false, version: null, updates: null, reportedAt: null },
          ],
          total: 4,
          page: 1,
          pageSize: 2,
          versions: [{ version: null, lockers: 4 }],
        },
      },
    },
  },
};
