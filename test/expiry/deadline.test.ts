/**
 * Non-working days of the locker push the storage deadline (spec: "extended by as many days as
 * there are non-working days"): its weekly schedule, holidays, special non-working days and days
 * of exclusion, while a special working day does not. Seen by the marketplace in the
 * expiration-date-changes notifications of loads and of the extension operation.
 */
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/cloud-db.js';
import { KEYS, orderBody, useNotifyCloud } from '../notify/helpers/notify-cloud.js';

describe.each(testEngines())('storage deadlines on non-working days (%s)', (engine) => {
  // Locker 1: closed on Sundays, holiday 2030-03-08; here also a special non-working day, a day
  // of exclusion, and a Sunday made a working day.
  const h = useNotifyCloud(engine, {
    now: '2030-03-04T09:00:00Z',
    editFleet: (f) => {
      f.lockers[0]!.specialDays = {
        holidays: [{ day: '2030-03-08', type: 1 }],
        days: [
          { date: '2030-03-12', nonWorking: true },
          { date: '2030-03-17', start: '10:00', end: '16:00', nonWorking: false },
        ],
        daysOfExclusion: [{ date: '2030-03-13' }],
      };
    },
  });

  async function loadAt(externalId: string, at: string): Promise<void> {
    // Days pass between loads: let the previous load's notifications finish first, or the jump
    // would outlast their attempt's lease and the (correct) re-claim would deliver them twice.
    await h.nc.dispatcher.idle();
    h.nc.clock.set('2030-03-04T09:00:00Z');
    const res = await h.nc.call('PUT', '/api/v4/auth/delivery/smartorder/create', { key: KEYS.shopA, body: orderBody(externalId) });
    expect(res.status).toBe(200);
    h.nc.clock.set(at);
    await h.nc.fact(1, { type: 'parcel.loaded', orderId: await h.nc.orderId(externalId), barcode: `${externalId}-P1`, cellId: res.body.reserved[0].cellId as number, grantId: 'g' });
  }

  /** The deadline notifications, by order (different orders are delivered independently), in order within one. */
  async function deadlines(n: number): Promise<{ id: string }[]> {
    await h.receiver.waitFor(() => h.receiver.calls.filter((c) => c.path === '/expiration-date-changes').length >= n);
    await h.nc.dispatcher.idle();
    const bodies = h.receiver.delivered.filter((c) => c.path === '/expiration-date-changes').map((c) => c.body as { id: string });
    return bodies.sort((a, b) => a.id.localeCompare(b.id));
  }

  it('pushes past holidays, weekly days off, special days and days of exclusion', async () => {
    await loadAt('D1', '2030-03-05T09:00:00Z'); // Tue 12:00 + 72 h = Fri, a holiday -> Sat
    await loadAt('D2', '2030-03-07T09:00:00Z'); // Thu 12:00 + 72 h = Sun, closed -> Mon
    await loadAt('D3', '2030-03-14T09:00:00Z'); // Thu 12:00 + 72 h = Sun, a special working day: stays
    expect(await deadlines(3)).toStrictEqual([
      { id: 'D1', event_dt: '2030-03-05T12:00:00+03:00', expire_dt: '2030-03-09T12:00:00+03:00' },
      { id: 'D2', event_dt: '2030-03-07T12:00:00+03:00', expire_dt: '2030-03-11T12:00:00+03:00' },
      { id: 'D3', event_dt: '2030-03-14T12:00:00+03:00', expire_dt: '2030-03-17T12:00:00+03:00' },
    ]);

    // Extension of D1: Sat 12:00 + 72 h = Tue 03-12, special non-working -> Wed 03-13, excluded -> Thu.
    h.nc.clock.set('2030-03-08T07:30:00Z');
    const ext = await h.nc.call('POST', '/api/v4/auth/delivery/order/extension', { key: KEYS.shopA, body: { extId: 'D1' } });
    expect(ext.body).toEqual({ externalID: 'D1', date_storage: '2030-03-14T12:00:00+03:00' });
    expect((await deadlines(4)).filter((d) => d.id === 'D1')).toStrictEqual([
      { id: 'D1', event_dt: '2030-03-05T12:00:00+03:00', expire_dt: '2030-03-09T12:00:00+03:00' },
      { id: 'D1', event_dt: '2030-03-08T10:30:00+03:00', expire_dt: '2030-03-14T12:00:00+03:00' },
    ]);

    // The storage clock keeps to the pushed deadline.
    h.nc.clock.set('2030-03-14T08:59:59Z');
    expect((await h.nc.storageClock.tick()).expired).toBe(1); // D2 (Mon 03-11) only
    h.nc.clock.set('2030-03-14T09:00:00Z');
    expect((await h.nc.storageClock.tick()).expired).toBe(1); // D1
  });
});
