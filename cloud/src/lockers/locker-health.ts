/** A locker's latest health report for operators (reports arrive over the link: sync/locker-link.ts). */
import type { Tx } from '../db/transaction.js';
import { invalidRequest } from '../errors.js';
import { healthReportOf, type StoredHealthReport } from '../repositories/locker-health.js';
import { findLocker } from '../repositories/lockers.js';

/** The latest report, or null when the locker's agent has sent none; code 3 for an unknown locker. */
export async function lockerHealth(db: Tx, lockerId: number): Promise<StoredHealthReport | null> {
  const stored = await healthReportOf(db, lockerId);
  if (stored) return stored;
  if (!(await findLocker(db, lockerId))) throw invalidRequest({ ru: `постамат ${lockerId} не найден`, en: `locker ${lockerId} not found` });
  return null;
}
