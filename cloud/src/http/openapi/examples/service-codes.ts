/**
 * Examples of POST /operator/lockers/{lockerId}/service-codes. They run last: the code's command
 * and audit entry would otherwise change the command and audit lists the other examples show.
 */
import type { OperationExamples } from './types.js';

export const serviceCodeExamples: Record<string, OperationExamples> = {
  issueServiceCode: {
    success: "The service.code command is recorded; the code is shown in this answer only, the locker gets its hash",
    requests: {
      inventory: {
        summary: 'A technician goes to locker 101 to check the cells set aside after a power cut',
        params: { lockerId: 101 },
        body: { minutes: 60, reason: 'inventory after a power cut' },
        status: 201,
      },
      notAnnounced: {
        summary: 'A locker whose agent has not announced service.code',
        params: { lockerId: 102 },
        body: { minutes: 30 },
        status: 400,
        answer: 'code3',
      },
    },
    answers: {
      inventory: {
        status: 201,
        summary: 'Code 40718263 opens the service menu of locker 101 for an hour',
        value: { lockerId: 101, codeId: '00000000-0000-4000-8000-000000000005', code: '40718263', validUntil: 1898848800000, cseq: 7 },
      },
    },
  },
};
