import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { asyncApiText, buildAsyncApi } from '../../cloud/src/sync/asyncapi.js';
import { downMessageSchema, upMessageSchema } from '../../shared/src/protocol.js';

const committed = readFileSync(new URL('../../docs/asyncapi.json', import.meta.url), 'utf8');

function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refs(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

function resolve(doc: unknown, ref: string): unknown {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
}

describe('AsyncAPI document of the locker link', () => {
  it('is what the protocol schemas generate (regenerate: npx tsx cloud/src/sync/cli-asyncapi.ts)', () => {
    expect(committed).toBe(asyncApiText());
  });

  it('resolves every reference and describes every message of the protocol', () => {
    const doc = buildAsyncApi() as { asyncapi: string; components: { messages: Record<string, { name: string }> } };
    expect(doc.asyncapi).toBe('3.0.0');
    for (const ref of refs(doc)) expect(resolve(doc, ref), ref).toBeDefined();
    const names = Object.values(doc.components.messages).map((m) => m.name).sort();
    const expected = [
      ...downMessageSchema.options.map((o) => `down.${o.shape.type.value}`),
      ...upMessageSchema.options.map((o) => `up.${o.shape.type.value}`),
      'presence',
    ].sort();
    expect(names).toEqual(expected);
  });
});
