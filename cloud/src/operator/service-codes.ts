/**
 * A technician's service code for one locker (docs/agent.md, "Service menu"): an operator issues
 * it, the answer shows it once, and the cloud keeps nothing of it but the audit entry (its id and
 * end). The locker gets only its hash and end, as a `service.code` command; typed at the screen
 * it opens the service menu until then, under the keypad's back-off like any other code. Only a
 * locker whose agent announced `service.code` in its last hello gets one.
 */
import { codeHash } from '../../../shared/src/codes.js';
import { CodeKind } from '../../../shared/src/enums.js';
import { SERVICE_CODE_MAX_TTL_MS } from '../../../shared/src/protocol.js';
import { lockerTransaction } from '../db/transaction.js';
import { invalidRequest } from '../errors.js';
import { recordChange } from '../outbox/record-change.js';
import { announcedCommandTypes } from '../repositories/lockers.js';
import type { ServiceDeps } from '../services.js';
import { type Actor, audit, targets } from './audit.js';

/** Digits of a service code: beyond what a keypad back-off lets anyone guess within a code's life. */
export const SERVICE_CODE_LENGTH = 8;
export const SERVICE_CODE_DEFAULT_MINUTES = 60;
export const SERVICE_CODE_MAX_MINUTES = SERVICE_CODE_MAX_TTL_MS / 60_000;

export interface ServiceCodeAnswer {
  lockerId: number;
  codeId: string;
  /** The code itself: in this answer only. */
  code: string;
  validUntil: number;
  cseq: number;
}

export async function issueServiceCode(deps: ServiceDeps, lockerId: number, minutes: number, actor: Actor): Promise<ServiceCodeAnswer> {
  const now = deps.clock.now();
  const validUntil = now + minutes * 60_000;
  const code = deps.random.digits(SERVICE_CODE_LENGTH);
  const codeId = deps.random.uuid();
  const cseq = await lockerTransaction(deps.cdb, [lockerId], async (tx) => {
    const commandTypes = await announcedCommandTypes(tx, lockerId);
    if (commandTypes === undefined) throw invalidRequest({ ru: `постамат ${lockerId} не найден`, en: `locker ${lockerId} not found` });
    if (commandTypes === null || !commandTypes.includes('service.code')) {
      // An agent that does not know the command would refuse the whole batch, over and over.
      throw invalidRequest({
        ru: `постамат ${lockerId} не объявил service.code (его агент старее или с тех пор не подключался)`,
        en: `locker ${lockerId} has not announced service.code (its agent is older, or has not connected since)`,
      });
    }
    const body = { type: 'service.code' as const, codeId, codeHash: codeHash(CodeKind.Service, String(lockerId), code), validUntil };
    const { cseqs: [seq] } = await recordChange(tx, { at: now, commands: [{ lockerId, body }] });
    await audit(tx, actor, now, 'service.code', targets.locker(lockerId), { codeId, cseq: seq, validUntil: new Date(validUntil).toISOString() }, { lockerId });
    return seq!;
  });
  deps.signals.commandsRecorded([lockerId]);
  deps.logger.info({ lockerId, codeId, cseq, validUntil }, 'service code issued');
  return { lockerId, codeId, code, validUntil, cseq };
}
