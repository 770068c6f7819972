/**
 * An operator opens a cell's door remotely: a `cell.open` command with an absolute `notAfter`
 * (now + the request's maximum age). The locker refuses it once its own clock passes `notAfter`,
 * so a command that queued for long (locker offline, broker backlog) never opens a door late; the
 * outcome comes back as a `cell.open` event (kept in locker_alerts). Only a locker whose agent
 * announced `cell.open` in its last hello gets one.
 */
import { CELL_OPEN_MAX_AGE_MS, type CellOpenReason } from '../../../shared/src/protocol.js';
import { lockerTransaction } from '../db/transaction.js';
import { invalidRequest } from '../errors.js';
import { recordChange } from '../outbox/record-change.js';
import { announcedCommandTypes, findCell } from '../repositories/lockers.js';
import type { ServiceDeps } from '../services.js';
import { type Actor, audit, targets } from './audit.js';

export const CELL_OPEN_DEFAULT_MAX_AGE_SECONDS = 300;
export const CELL_OPEN_MAX_AGE_SECONDS = CELL_OPEN_MAX_AGE_MS / 1000;

export interface CellOpenRequest {
  reason: CellOpenReason;
  maxAgeSeconds: number;
}

export interface CellOpenAnswer {
  lockerId: number;
  cellId: number;
  cseq: number;
  notAfter: number;
}

function acceptsCellOpen(commandTypes: readonly string[] | null): boolean {
  return commandTypes !== null && commandTypes.includes('cell.open');
}

export async function requestCellOpen(deps: ServiceDeps, lockerId: number, cellId: number, req: CellOpenRequest, actor: Actor): Promise<CellOpenAnswer> {
  const now = deps.clock.now();
  const notAfter = now + req.maxAgeSeconds * 1000;
  const cseq = await lockerTransaction(deps.cdb, [lockerId], async (tx) => {
    const commandTypes = await announcedCommandTypes(tx, lockerId);
    if (commandTypes === undefined) throw invalidRequest({ ru: `постамат ${lockerId} не найден`, en: `locker ${lockerId} not found` });
    if (!acceptsCellOpen(commandTypes)) {
      // An agent that does not know the command would refuse the whole batch, over and over.
      throw invalidRequest({ ru: `постамат ${lockerId} не объявил cell.open (его агент старее или с тех пор не подключался)`, en: `locker ${lockerId} has not announced cell.open (its agent is older, or has not connected since)` });
    }
    const cell = await findCell(tx, lockerId, cellId);
    if (!cell) throw invalidRequest({ ru: `ячейка ${cellId} постамата ${lockerId} не найдена`, en: `cell ${cellId} of locker ${lockerId} not found` });
    const { cseqs: [seq] } = await recordChange(tx, { at: now, commands: [{ lockerId, body: { type: 'cell.open', cellId, reason: req.reason, notAfter } }] });
    await audit(tx, actor, now, 'cell.open', targets.cell(lockerId, cellId), { cseq: seq, openReason: req.reason, notAfter: new Date(notAfter).toISOString() }, { lockerId });
    return seq!;
  });
  deps.signals.commandsRecorded([lockerId]);
  deps.logger.info({ lockerId, cellId, cseq, reason: req.reason, notAfter }, 'operator cell open requested');
  return { lockerId, cellId, cseq, notAfter };
}
