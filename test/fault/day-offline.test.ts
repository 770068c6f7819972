/**
 * A working day offline (docs/testing.md): a locker cut off from the cloud while its clock runs
 * from 10:00 to 18:00 serves everything it knew, and on reconnecting both sides reconcile every
 * fact exactly once; the fault suite's checker judges the history. On the embedded broker always,
 * on a private Mosquitto where MQTT_URL is set (as the fault suite).
 */
import { describe, expect, it } from 'vitest';
import { OrderState } from '../../shared/src/enums.js';
import { requires } from '../helpers/requirements.js';
import { anomalyTotal } from './checker.js';
import { runDayOffline } from './day-offline.js';
import type { BrokerKind } from './fault-world.js';
import type { OrderModel } from './history.js';

const { ClientReceived: RECEIVED, CourierLoaded: LOADED, CourierPickedUp: RETURNED, AwaitingReturn: AWAITING } = OrderState;

function judge(broker: BrokerKind) {
  return async () => {
    const day = await runDayOffline(broker);
    console.log(
      `day offline (${broker}): ${day.outboxLength} events; relay after the reconnect: ${day.chaos.duplicated} duplicated, ${day.chaos.reordered} reordered; ` +
        `receiver: ${day.calls} calls, ${day.deliveries} distinct deliveries`,
    );
    const o = day.orders;

    // Everything the locker knew was served offline, and what reconnecting brought after.
    expect(day.offline.filter((s) => s.outcome !== 'ok')).toEqual([]);
    expect(day.offline).toHaveLength(7);
    expect(day.afterwards.filter((s) => s.outcome !== 'ok')).toEqual([]);

    // The checker finds nothing wrong in the whole history, and no process died.
    expect(day.result.anomalies).toEqual([]);
    expect(anomalyTotal(day.result.counts)).toBe(0);
    expect(day.unexpected).toEqual([]);
    // The reconnect's backlog went through a relay that duplicated and reordered some of it.
    expect(day.chaos.duplicated + day.chaos.reordered).toBeGreaterThan(0);
    // Every event applied once at the cloud: its inbox holds exactly the agent's events, 1..n.
    expect(day.inboxDseqs).toEqual(Array.from({ length: day.outboxLength }, (_, i) => i + 1));

    // Each fact told to the marketplace once and in order, per parcel (deliveries told apart by
    // X-Notification-Id, so a redelivery is not a second telling).
    const toldOf = (order: OrderModel, barcode: string) => (day.statuses.get(order.externalId) ?? []).filter((s) => s.barcode === barcode);
    const told = (order: OrderModel, barcode: string) => toldOf(order, barcode).map((s) => s.event);
    const sequences: [OrderModel, number[]][] = [
      [o.collected, [LOADED, RECEIVED]],
      [o.collectedPair, [LOADED, RECEIVED]],
      // Cancelled after loading, taken out offline.
      [o.cancelled, [LOADED, AWAITING, RETURNED]],
      // Storage ran out while offline: the marketplace heard 7, then of the courier's return.
      [o.expired, [LOADED, AWAITING, RETURNED]],
      // Collected at 12:00; the cloud heard only at 18:00, after telling 7 in the afternoon: the fact stands.
      [o.collectedEarly, [LOADED, AWAITING, RECEIVED]],
      [o.collectedLate, [LOADED, AWAITING, RECEIVED]],
      // Loaded offline: the cloud heard on reconnecting, issued a code, and the customer came.
      [o.loadedOffline, [LOADED, RECEIVED]],
    ];
    for (const [order, events] of sequences) for (const b of order.barcodes) expect(told(order, b), `${order.externalId} ${b}`).toEqual(events);

    // Facts recorded offline reach the marketplace with the locker-time hour they happened at (the
    // shared clock's), not the hour of the reconnect.
    const hourOf = (order: OrderModel, event: number) => toldOf(order, order.barcodes[0]!).find((s) => s.event === event)?.hour;
    expect(hourOf(o.loadedOffline, LOADED)).toBe('11');
    expect(hourOf(o.cancelled, RETURNED)).toBe('11');
    for (const order of [o.collected, o.collectedPair, o.collectedEarly]) expect(hourOf(order, RECEIVED), order.externalId).toBe('12');
    expect(hourOf(o.collectedLate, RECEIVED)).toBe('16');
    expect(hourOf(o.loadedOffline, RECEIVED)).toBe('18');

    // Both sides end in the same states, through the API and the agent's store.
    const final = new Map(sequences.map(([order, events]) => [order.externalId, events.at(-1)!]));
    expect(day.apiStates).toEqual(final);
    expect(day.agentStates).toEqual(final);
  };
}

describe('a working day offline (embedded broker)', () => {
  it('serves what the locker knew and reconciles every fact exactly once', { timeout: 180_000 }, judge('embedded'));
});

describe.runIf(requires('mqtt-url', 'mosquitto'))('a working day offline (Mosquitto)', () => {
  it('serves what the locker knew and reconciles every fact exactly once', { timeout: 180_000 }, judge('mosquitto'));
});
