/** The MQTT topic map the broker ACLs rely on, and turning Nagle off on a client's socket. */
import { describe, expect, it, vi } from 'vitest';
import { disableNagle } from '../../shared/src/mqtt-nodelay.js';
import { TOPIC_ROOT, cloudSubscriptions, parseLockerTopic, sharedSubscription, topics } from '../../shared/src/topics.js';

describe('the topic map', () => {
  it('puts every topic of a locker under lockers/<id>/', () => {
    expect(TOPIC_ROOT).toBe('lockers');
    expect(topics.down('L1')).toBe('lockers/L1/down');
    expect(topics.up('L1')).toBe('lockers/L1/up');
    expect(topics.presence('L1')).toBe('lockers/L1/presence');
  });

  it('gives the cloud wildcard subscriptions to every locker\'s up and presence topics, and shared forms of them', () => {
    expect(cloudSubscriptions).toEqual({ up: 'lockers/+/up', presence: 'lockers/+/presence' });
    expect(sharedSubscription('cloud', cloudSubscriptions.up)).toBe('$share/cloud/lockers/+/up');
  });

  it('parses back every topic it builds', () => {
    for (const kind of ['down', 'up', 'presence'] as const) {
      expect(parseLockerTopic(topics[kind]('locker-7'))).toEqual({ lockerId: 'locker-7', kind });
    }
  });

  it('rejects topics of another root, another kind, another depth or without a locker id', () => {
    for (const topic of [
      '',
      'lockers',
      'lockers/L1',
      'lockers//up',
      'lockers/L1/sideways',
      'lockers/L1/UP',
      'lockers/L1/up/extra',
      '/lockers/L1/up',
      'other/L1/up',
      'Lockers/L1/up',
      '$share/cloud/lockers/+/up',
    ]) {
      expect(parseLockerTopic(topic), topic).toBeNull();
    }
  });

  it('takes wildcards literally as the locker id (the ACL decides what they may do)', () => {
    expect(parseLockerTopic(cloudSubscriptions.up)).toEqual({ lockerId: '+', kind: 'up' });
  });
});

describe('disableNagle', () => {
  it('turns Nagle off on a TCP stream', () => {
    const setNoDelay = vi.fn();
    disableNagle({ stream: { setNoDelay } });
    expect(setNoDelay).toHaveBeenCalledExactlyOnceWith(true);
  });

  it('does nothing for a client without a stream, or with a stream that is not a TCP socket', () => {
    expect(() => disableNagle({})).not.toThrow();
    expect(() => disableNagle({ stream: undefined })).not.toThrow();
    expect(() => disableNagle({ stream: null })).not.toThrow();
    expect(() => disableNagle({ stream: { write: () => true } })).not.toThrow();
    expect(() => disableNagle({ stream: { setNoDelay: 'yes' } })).not.toThrow();
  });
});
