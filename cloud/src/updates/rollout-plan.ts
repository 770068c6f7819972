/**
 * Which lockers go in which wave (pure). Waves are cumulative percentages of the target, the last
 * one 100: [1, 10, 50, 100] updates 1% first, then up to 10%, 50% and the rest. A wave that would
 * hold no locker (3 lockers at 1% and 10%) is merged into the next, so every wave has a locker and
 * the first one always starts small. The order is the operator's for a list of lockers, and
 * otherwise a shuffle seeded by the rollout (no city, street or id range goes first every time).
 */
import { createHash } from 'node:crypto';

export const MAX_WAVES = 10;

/** Null when the waves are usable; else what is wrong. */
export function wavesProblem(waves: readonly number[]): string | null {
  if (waves.length === 0 || waves.length > MAX_WAVES) return `give 1 to ${MAX_WAVES} waves`;
  for (let i = 0; i < waves.length; i++) {
    const p = waves[i]!;
    if (!(p > 0 && p <= 100)) return 'each wave is a percentage above 0 and at most 100';
    if (i > 0 && p <= waves[i - 1]!) return 'waves are cumulative: each larger than the one before';
  }
  if (waves.at(-1) !== 100) return 'the last wave must be 100 (every locker of the target)';
  return null;
}

/** Shuffled by a digest of the seed and each id: stable for a rollout, different between rollouts. */
export function shuffled(lockerIds: readonly number[], seed: string): number[] {
  const key = (id: number): string => createHash('sha256').update(`${seed}:${id}`).digest('hex');
  return [...lockerIds].map((id) => ({ id, k: key(id) })).sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0)).map((x) => x.id);
}

/** Each locker's wave (0-based, no empty wave), in the order given. */
export function assignWaves(ordered: readonly number[], waves: readonly number[]): { lockerId: number; wave: number }[] {
  const n = ordered.length;
  const ends = waves.map((p) => Math.min(n, Math.max(1, Math.ceil((p / 100) * n))));
  const out: { lockerId: number; wave: number }[] = [];
  let wave = 0;
  let start = 0;
  for (const end of ends) {
    if (end <= start) continue;
    for (let i = start; i < end; i++) out.push({ lockerId: ordered[i]!, wave });
    start = end;
    wave += 1;
  }
  return out;
}
