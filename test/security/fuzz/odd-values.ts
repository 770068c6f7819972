/**
 * Hostile values: odd text (lone surrogates, NUL, bidi controls, emoji, SQL and JSON
 * metacharacters), megabyte strings, and values of the wrong type.
 */
import fc from 'fast-check';

export const ODD_STRINGS: readonly string[] = [
  '\ud800', // lone high surrogate
  'A\udc00B', // lone low surrogate inside text
  '\udfff\ud800', // reversed pair
  '\u0000',
  'abc\u0000def',
  '\u202eevil\u202c', // right-to-left override
  '\u200f\u05e9\u05dc\u05d5\u05dd', // RTL mark + Hebrew
  '😀👨‍👩‍👧‍👦🏳️‍🌈',
  'e\u0301\u0301\u0301', // stacked combining marks
  '\ufeffBOM',
  '\u2028\u2029',
  "' OR '1'='1' --",
  "'; DROP TABLE orders; --",
  '" OR ""="',
  '%',
  '%00',
  '\\',
  '\\u0000',
  '"}],"x":{"',
  '{"$where":"1"}',
  '__proto__',
  '../../../etc/passwd',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '\r\nX-Injected: 1',
  ' ',
  '',
  '\u00a0\u3000',
  'ＡＢＣ１２３', // full-width
  '1e309',
  '-0',
  '0x1F',
  '9'.repeat(40),
];

export const oddString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...ODD_STRINGS), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 12 }), weight: 1 },
  { arbitrary: fc.tuple(fc.constantFrom(...ODD_STRINGS), fc.string({ maxLength: 6 })).map(([odd, text]) => `${text}${odd}${text}`), weight: 1 },
);

/** Bytes a piece of text takes inside a JSON string. */
const jsonBytes = (piece: string): number => Buffer.byteLength((JSON.stringify(piece) ?? '""').slice(1, -1), 'utf8');

/** `minBytes` to `maxBytes` (as sent in JSON) of text: one odd or plain piece repeated. */
export function hugeString(minBytes: number, maxBytes: number): fc.Arbitrary<string> {
  return fc
    .tuple(fc.integer({ min: Math.min(minBytes, maxBytes), max: maxBytes }), fc.constantFrom('a', 'Я', '😀', '\ud800', '\u0000', '0123456789', "'\"\\", 'x@'))
    .map(([bytes, piece]) => piece.repeat(Math.max(1, Math.floor(bytes / jsonBytes(piece)))));
}

function deep(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

/** Values that are of the wrong type for almost any field. */
export const wrongTypeValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, -2147483649, 2 ** 53 + 2, 1e308, [], {}, [null], '1', 'true', '', { '': null }, deep(200)),
  fc.jsonValue({ maxDepth: 2 }),
);
