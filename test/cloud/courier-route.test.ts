import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CodeKind } from '../../shared/src/enums.js';
import { codeHash } from '../../shared/src/codes.js';
import type { RandomSource } from '../../cloud/src/random.js';
import { cryptoRandom } from '../../cloud/src/random.js';
import { KEYS, routeBody } from './helpers/fleet-fixtures.js';
import { commandsFor, lastCseq } from './helpers/db-queries.js';
import { type TestCloud, startTestCloud } from './helpers/test-cloud.js';
import { testEngines } from '../helpers/cloud-db.js';

const ROUTE = '/api/v1/auth/couriers/courier-with-route';

/** Random digits from a script first (to force collisions), then from the real source. */
class ScriptedDigits implements RandomSource {
  script: string[] = [];
  uuid(): string {
    return cryptoRandom.uuid();
  }
  digits(length: number): string {
    return this.script.shift() ?? cryptoRandom.digits(length);
  }
}

describe.each(testEngines())('courier route sheets on %s', (engine) => {
  let tc: TestCloud;
  const random = new ScriptedDigits();
  beforeAll(async () => {
    tc = await startTestCloud(engine, { random });
  });
  afterAll(async () => tc.stop());
  beforeEach(async () => {
    random.script = [];
    await tc.reset();
  });

  const route = (body: unknown, partnerKey: string = KEYS.partner) => tc.call('PUT', ROUTE, { partnerKey, body });

  it('registers the courier and grants access at every locker until the end of the route date there', async () => {
    const [c1, c2] = [await lastCseq(tc, 1), await lastCseq(tc, 2)];
    const res = await route(routeBody({}, { postamatIds: ['1', 2] }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ mosRegistryDescr: expect.any(String), mosRegistryStatus: 0, postamatAccessCode: expect.stringMatching(/^\d{8}$/) });
    const code: string = res.body.postamatAccessCode;
    const courier = await tc.db.db.selectFrom('couriers').selectAll().executeTakeFirstOrThrow();
    expect(courier).toMatchObject({ partner_id: 'courier-co', external_id: 'courier-1', email: 'ivan@example.ru', phone: '+79990000001', inn: '7701234567' });
    const sheet = await tc.db.db.selectFrom('route_sheets').selectAll().executeTakeFirstOrThrow();
    expect(sheet).toMatchObject({ courier_id: courier.id, route_date: '2030-03-04', car_number: 'А123ВС77', external_id: 'route-1' });

    const endOfDay = { 1: Date.parse('2030-03-04T23:59:59.999+03:00'), 2: Date.parse('2030-03-04T23:59:59.999+05:00') };
    for (const [lockerId, after] of [[1, c1], [2, c2]] as const) {
      const commands = await commandsFor(tc, lockerId, after);
      expect(commands).toEqual([
        {
          cseq: after + 1,
          type: 'courier.grant',
          grant: {
            grantId: `${sheet.id}:${lockerId}`,
            codeHash: codeHash(CodeKind.Courier, String(lockerId), code),
            validUntil: endOfDay[lockerId],
            marketplaceIds: ['shop-a', 'shop-b'],
            courierRef: courier.id,
          },
        },
      ]);
      // No personal data travels to the locker.
      expect(JSON.stringify(commands)).not.toMatch(/example\.ru|\+7999|7701234567/);
    }
  });

  it('updates a known courier and keeps several route sheets per date, each with its own code', async () => {
    const first = await route(routeBody());
    const second = await route(routeBody({ phone: '+79990000009', email: 'new@example.ru' }, { externalId: 'route-2', postamatIds: [1] }));
    expect(second.status).toBe(200);
    expect(second.body.postamatAccessCode).not.toBe(first.body.postamatAccessCode);
    const couriers = await tc.db.db.selectFrom('couriers').selectAll().execute();
    expect(couriers).toHaveLength(1);
    expect(couriers[0]).toMatchObject({ phone: '+79990000009', email: 'new@example.ru' });
    expect(await tc.db.db.selectFrom('route_sheets').select('id').execute()).toHaveLength(2);
  });

  it('draws another code when one is active at a locker of the route', async () => {
    random.script = ['11111111'];
    expect((await route(routeBody({}, { postamatIds: [2] }))).body.postamatAccessCode).toBe('11111111');
    random.script = ['11111111', '22222222'];
    expect((await route(routeBody({ externalId: 'courier-2', email: 'b@example.ru', phone: '+79990000002' }, { postamatIds: [1, 2] }))).body.postamatAccessCode).toBe('22222222');
    // Once the first code's day is over at its locker, the code may be given out again.
    tc.clock.set('2030-03-05T06:00:00Z');
    random.script = ['11111111'];
    expect((await route(routeBody({ externalId: 'courier-3', email: 'c@example.ru', phone: '+79990000003' }, { date: '2030-03-05', postamatIds: [2] }))).body.postamatAccessCode).toBe('11111111');
  });

  it('answers 604 for an empty courier externalId', async () => {
    for (const externalId of ['', '  ']) {
      expect(await route(routeBody({ externalId }))).toEqual({ status: 400, body: { message: 'Courier ext-id id empty', resultCode: 604 } });
    }
  });

  it('answers 500 for a locker outside the permission profile or a partner without one', async () => {
    const refused = { status: 400, body: { message: 'Postamat permission profile not set for logist', resultCode: 500 } };
    expect(await route(routeBody({}, { postamatIds: [1, 3] }))).toEqual(refused);
    expect(await route(routeBody({}, { postamatIds: [999] }))).toEqual(refused);
    expect(await route(routeBody({}, { postamatIds: [1] }), KEYS.partnerNone)).toEqual(refused);
    expect(await tc.db.db.selectFrom('couriers').select('id').execute()).toHaveLength(0);
  });

  it("answers 602 when another of the partner's couriers uses the e-mail or the phone", async () => {
    await route(routeBody());
    for (const [courier, field] of [
      [{ externalId: 'courier-2', email: 'IVAN@example.ru', phone: '+79990000002' }, 'courier.email'],
      [{ externalId: 'courier-2', email: 'other@example.ru', phone: '+79990000001' }, 'courier.phone'],
      [{ externalId: 'courier-2', email: 'ivan@example.ru', phone: '+79990000001' }, 'courier.email and courier.phone'],
    ] as const) {
      const res = await route(routeBody(courier));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ resultCode: 602, message: `Courier already exists for the logist: ${field} already used by its courier with externalId courier-1` });
    }
    expect(await tc.db.db.selectFrom('couriers').select('id').execute()).toHaveLength(1);
  });

  it('agrees under concurrent registrations of one e-mail: one courier, the others 602', async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => route(routeBody({ externalId: `racer-${i}`, phone: `+7999000010${i}`, email: 'same@example.ru' }))),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.body.resultCode === 602)).toHaveLength(4);
  });
});
