/**
 * aedes's memory persistence with retained messages found by topic. The stock one answers every
 * SUBSCRIBE by testing the filter against each retained message, and every locker subscribes to
 * its own presence while every locker's presence is retained: connecting N lockers cost N x N
 * topic matches (at 2,000 lockers the broker's largest cost, quadratic in the fleet). Filters
 * without wildcards, all a locker may subscribe to, are answered from a map; a filter with a
 * wildcard (the cloud's `lockers/+/presence`, once per connection) still goes to the scan.
 */
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import type { AedesPersistence, Packet } from 'aedes-persistence';

// A CommonJS module whose types declare an ES default export; require() gets the factory itself.
const memoryPersistence = createRequire(import.meta.url)('aedes-persistence') as () => AedesPersistence;

const isExact = (filter: string): boolean => !filter.includes('+') && !filter.includes('#');

export function indexedMemoryPersistence(): AedesPersistence {
  const persistence = memoryPersistence();
  const byTopic = new Map<string, Packet>();
  const store = persistence.storeRetained.bind(persistence);
  const scan = persistence.createRetainedStreamCombi.bind(persistence);
  const scanOne = persistence.createRetainedStream.bind(persistence);
  // The stock store keeps a copy of each packet; the index keeps the same copy's fields, so both
  // answer alike. An empty payload clears the topic (MQTT 3.1.1, 3.3.1.3).
  persistence.storeRetained = (packet: Packet, cb) => {
    // Only PUBLISH packets are retained.
    const { topic, payload } = packet as Packet & { topic: string; payload: Buffer | string };
    if (payload.length === 0) byTopic.delete(topic);
    else byTopic.set(topic, { ...packet });
    // Without a callback the stock store returns a promise, which aedes awaits.
    return store(packet, cb);
  };
  persistence.createRetainedStreamCombi = (filters: string[]) => {
    if (!filters.every(isExact)) return scan(filters);
    return Readable.from(filters.flatMap((f) => byTopic.get(f) ?? []));
  };
  persistence.createRetainedStream = (filter: string) => {
    if (!isExact(filter)) return scanOne(filter);
    const packet = byTopic.get(filter);
    return Readable.from(packet ? [packet] : []);
  };
  return persistence;
}
