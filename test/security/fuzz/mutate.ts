/**
 * Mutations of a valid-ish JSON body: one change at one place, so that each refused request
 * says which rule it probes. The place is drawn among the value's paths of the fitting kind.
 */
import fc from 'fast-check';
import { oddString, wrongTypeValue } from './odd-values.js';

export type Mutation = 'wrong-type' | 'odd-string' | 'huge-string' | 'unknown-field' | 'missing-field';

type Path = (string | number)[];

function pathsOf(value: unknown, path: Path = [], out: { path: Path; value: unknown }[] = []): { path: Path; value: unknown }[] {
  out.push({ path, value });
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...path, i], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) pathsOf(v, [...path, k], out);
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Sets an own, enumerable property (also for "__proto__", which plain assignment would not). */
function setOwn(target: Record<string, unknown> | unknown[], key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function at(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], root);
}

function replaceAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  setOwn(at(root, path.slice(0, -1)) as Record<string, unknown>, path[path.length - 1]!, value);
  return root;
}

const UNKNOWN_KEYS = ['extra', '__proto__', 'constructor', 'prototype', 'resultCode', 'id', 'marketplaceId', '\u0000', ''];

/** A mutated copy of `base`: the change and the place are drawn by fast-check. */
export function mutated(base: unknown, mutation: Mutation, huge: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  const places = pathsOf(base);
  const pick = <T>(list: T[]): fc.Arbitrary<T> => (list.length > 0 ? fc.constantFrom(...list) : fc.constant(list[0]!));
  const objects = places.filter((p) => isObject(p.value));
  const strings = places.filter((p) => typeof p.value === 'string');
  const leaves = places.filter((p) => p.path.length > 0);
  const copy = (): unknown => structuredClone(base);
  switch (mutation) {
    case 'wrong-type':
      return fc.tuple(pick(leaves.length > 0 ? leaves : places), wrongTypeValue).map(([p, v]) => replaceAt(copy(), p.path, v));
    case 'odd-string':
      return fc.tuple(pick(strings.length > 0 ? strings : places), oddString).map(([p, v]) => replaceAt(copy(), p.path, v));
    case 'huge-string':
      return fc.tuple(pick(strings.length > 0 ? strings : places), huge).map(([p, v]) => replaceAt(copy(), p.path, v));
    case 'unknown-field':
      if (objects.length === 0) return fc.constant(copy());
      return fc.tuple(pick(objects), fc.oneof(fc.constantFrom(...UNKNOWN_KEYS), oddString), fc.oneof(wrongTypeValue, oddString)).map(([p, key, v]) => {
        const root = copy();
        setOwn(at(root, p.path) as Record<string, unknown>, key, v);
        return root;
      });
    case 'missing-field': {
      const keyed = places.filter((p) => p.path.length > 0 && typeof p.path[p.path.length - 1] === 'string');
      if (keyed.length === 0) return fc.constant(copy());
      return pick(keyed).map((p) => {
        const root = copy();
        delete (at(root, p.path.slice(0, -1)) as Record<string, unknown>)[p.path[p.path.length - 1] as string];
        return root;
      });
    }
  }
}
