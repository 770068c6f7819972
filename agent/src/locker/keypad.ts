/**
 * Keypad back-off. Courier and customer codes are counted apart, so wrong pick-up codes never slow
 * couriers down and the other way round; nothing locks the locker for everyone. The first
 * `freeAttempts` wrong codes in a row cost nothing, then each one doubles the wait from
 * `baseDelayMs` up to `maxDelayMs` (15 minutes); a right code resets it. Wrong codes of one kind
 * passing `dailyAlarmThreshold` in a locker day raise one `keypad.alarm` that day. Every checked
 * attempt becomes a `code.attempt` event (the code itself never leaves the keypad); service codes,
 * counted apart too, report as `service.attempt` and `service.alarm` (their own message types, so
 * that the older kinds' messages stay as they were).
 */
import type { CodeKind } from '../../../shared/src/enums.js';
import type { Clock } from '../clock.js';
import type { LockerStore } from '../store/index.js';
import { lockerDay, lockerZone } from './time.js';

export interface KeypadSettings {
  freeAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  dailyAlarmThreshold: number;
}

const DAY_MS = 86_400_000;

export class Keypad {
  constructor(
    private readonly store: LockerStore,
    private readonly clock: Clock,
    private readonly settings: KeypadSettings,
  ) {}

  /** The wait imposed after `failures` wrong codes in a row. */
  delayAfter(failures: number): number {
    const costly = failures - this.settings.freeAttempts;
    if (costly <= 0) return 0;
    return Math.min(this.settings.baseDelayMs * 2 ** Math.min(costly - 1, 30), this.settings.maxDelayMs);
  }

  /** How long this kind of code must wait before the next attempt is checked, ms. */
  waitMs(kind: CodeKind): number {
    const { count, lastAt } = this.store.keypad.failuresInRow(kind);
    if (lastAt === null) return 0;
    return Math.max(0, lastAt + this.delayAfter(count) - this.clock.now());
  }

  /**
   * Records a checked attempt with its events; returns the wait before the next one. A service
   * code's attempt names the code it matched (`service`), if any.
   */
  record(kind: CodeKind, ok: boolean, service: { outcome: 'accepted' | 'wrong' | 'expired'; codeId: string | null } = { outcome: ok ? 'accepted' : 'wrong', codeId: null }): number {
    const now = this.clock.now();
    const day = lockerDay(now, lockerZone(this.store));
    this.store.tx(() => {
      this.store.keypad.record(kind, now, day, ok);
      this.store.outbox.emit(kind === 'service' ? { type: 'service.attempt', ...service } : { type: 'code.attempt', kind, ok });
      if (ok) return;
      const failuresToday = this.store.keypad.failuresOnDay(kind, day);
      if (failuresToday >= this.settings.dailyAlarmThreshold && this.store.keypad.raiseAlarm(kind, day)) {
        this.store.outbox.emit(kind === 'service' ? { type: 'service.alarm', failuresToday } : { type: 'keypad.alarm', kind, failuresToday });
      }
      this.store.keypad.prune(now - 2 * DAY_MS);
    });
    return this.waitMs(kind);
  }
}
