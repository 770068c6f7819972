/**
 * courier-with-route: registers or updates the partner's courier (matched by externalId) and
 * creates a route sheet with one access code for every locker of the route.
 *
 * - 604: empty courier externalId. 500: the partner has no permission profile, or the route names
 *   a locker outside it. 602: another courier of the same partner already uses the e-mail or the
 *   phone (also enforced by unique indexes, so concurrent requests agree); the message names the
 *   field and that courier's externalId. Couriers are per partner: nothing of another partner's
 *   couriers can clash, so nothing of theirs is revealed.
 * - The code is random (6-8 digits, COURIER_CODE_LENGTH), unique among the active courier codes of
 *   every locker on the route, and valid until the end of the route date in each locker's time zone.
 * - Each locker gets a `courier.grant` with the code's hash, the validity, the partner's
 *   marketplaces and an opaque courier reference (no personal data).
 * - Several route sheets per courier and date may exist; each has its own code.
 * - No city registry is consulted: `mosRegistryStatus` is 0 with a text saying so.
 */
import { CodeKind, ResultCode } from '../../../shared/src/enums.js';
import { codeHash } from '../../../shared/src/codes.js';
import type { CourierWithRouteAnswer, CourierWithRouteRequest } from '../contract/couriers.js';
import { isUniqueViolation } from '../db/errors.js';
import { lockerTransaction, type Tx } from '../db/transaction.js';
import { DomainError, invalidRequest } from '../errors.js';
import { endOfLocalDay } from '../lockers/locker-time.js';
import { recordChange } from '../outbox/record-change.js';
import { partnerLockerIds, partnerMarketplaceIds } from '../repositories/accounts.js';
import { codeHashInUse, courierWithSameContact, insertRouteGrants, insertRouteSheet, type RouteGrant, saveCourier } from '../repositories/couriers.js';
import { uniqueDigits } from '../random.js';
import { type Locker, lockersByIds } from '../repositories/lockers.js';
import type { ServiceDeps } from '../services.js';
import { recordAnswer } from '../request-scope.js';

export const MOS_REGISTRY_NOT_CHECKED = { mosRegistryStatus: 0, mosRegistryDescr: 'Not checked: no city registry is connected' } as const;

/** The calling partner: only its id matters here. */
type Partner = { id: string };

function noPermission(): DomainError {
  return new DomainError(ResultCode.PermissionProfileNotSet, 'Postamat permission profile not set for logist');
}

/**
 * 602 names the clashing field(s) and the partner's own courier that has them; the values are the
 * caller's own, so the message repeats none (it reaches logs).
 */
function courierExists(other: { externalId: string; fields: readonly ('email' | 'phone')[] }): DomainError {
  const fields = other.fields.map((f) => `courier.${f}`).join(' and ');
  return new DomainError(ResultCode.CourierAlreadyExists, `Courier already exists for the logist: ${fields} already used by its courier with externalId ${other.externalId}`);
}

export async function courierWithRoute(deps: ServiceDeps, partner: Partner, req: CourierWithRouteRequest): Promise<CourierWithRouteAnswer> {
  const { db } = deps.cdb;
  const externalId = req.courier.externalId;
  if (externalId === '') throw new DomainError(ResultCode.CourierExtIdEmpty, 'Courier ext-id id empty');

  const lockerIds = [...new Set(req.route.postamatIds)].sort((a, b) => a - b);
  const permitted = new Set(await partnerLockerIds(db, partner.id));
  if (permitted.size === 0 || lockerIds.some((id) => !permitted.has(id))) throw noPermission();
  const lockers = await lockersByIds(db, lockerIds);
  if (lockers.length !== lockerIds.length) throw noPermission();

  const now = deps.clock.now();
  const validUntil = new Map(lockers.map((l) => [l.id, endOfLocalDay(req.route.date, l.timezone)]));
  if ([...validUntil.values()].some((t) => t < now)) throw invalidRequest({ ru: `route.date ${req.route.date} уже закончилась`, en: `route.date ${req.route.date} has already ended` });
  const marketplaceIds = await partnerMarketplaceIds(db, partner.id);

  const attempt = () => createRouteSheet(deps, partner, req, lockers, validUntil, marketplaceIds, now);
  let answer: CourierWithRouteAnswer;
  try {
    answer = await attempt();
  } catch (err) {
    // A concurrent request registered the same e-mail or phone: the retry reports it as 602.
    if (!isUniqueViolation(err)) throw err;
    answer = await attempt();
  }
  deps.signals.commandsRecorded(lockerIds);
  return answer;
}

async function createRouteSheet(
  deps: ServiceDeps,
  partner: Partner,
  req: CourierWithRouteRequest,
  lockers: readonly Locker[],
  validUntil: ReadonlyMap<number, number>,
  marketplaceIds: string[],
  now: number,
): Promise<CourierWithRouteAnswer> {
  const email = req.courier.email.toLowerCase();
  const { phone } = req.courier;
  return lockerTransaction(
    deps.cdb,
    lockers.map((l) => l.id),
    async (tx) => {
      const other = await courierWithSameContact(tx, partner.id, { externalId: req.courier.externalId, email, phone });
      if (other) {
        throw courierExists(other);
      }
      const contact = { externalId: req.courier.externalId, email, phone, inn: req.courier.inn ?? null };
      const courierId = await saveCourier(tx, partner.id, contact, () => deps.random.uuid(), now);
      const routeSheetId = deps.random.uuid();
      await insertRouteSheet(tx, {
        id: routeSheetId,
        courierId,
        partnerId: partner.id,
        routeDate: req.route.date,
        carNumber: req.route.carNumber,
        externalId: req.route.externalId,
        createdAt: now,
      });
      const code = await uniqueCourierCode(tx, deps, lockers, now);
      const grants: RouteGrant[] = lockers.map((l) => ({
        routeSheetId,
        lockerId: l.id,
        codeHash: codeHash(CodeKind.Courier, String(l.id), code),
        validUntil: validUntil.get(l.id)!,
      }));
      await insertRouteGrants(tx, grants);
      await recordChange(tx, {
        at: now,
        commands: grants.map((g) => ({
          lockerId: g.lockerId,
          body: {
            type: 'courier.grant' as const,
            grant: { grantId: `${routeSheetId}:${g.lockerId}`, codeHash: g.codeHash, validUntil: g.validUntil, marketplaceIds, courierRef: courierId },
          },
        })),
      });
      return recordAnswer(deps.request, tx, { ...MOS_REGISTRY_NOT_CHECKED, postamatAccessCode: code });
    },
  );
}

/** A code that no active route sheet of any locker on the route uses already. */
async function uniqueCourierCode(tx: Tx, deps: ServiceDeps, lockers: readonly Locker[], now: number): Promise<string> {
  const inUse = async (code: string): Promise<boolean> => {
    for (const l of lockers) if (await codeHashInUse(tx, l.id, codeHash(CodeKind.Courier, String(l.id), code), now)) return true;
    return false;
  };
  return uniqueDigits(deps.random, deps.config.courierCodeLength, inUse, `courier code for lockers ${lockers.map((l) => l.id).join(', ')}`);
}
