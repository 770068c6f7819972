/** The settings tables of docs/operations.md: every kind of zod setting renders its accepted values and default. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  acceptedValues,
  cell,
  code,
  defaultText,
  markdownTable,
  replaceBetweenMarkers,
  textBetweenMarkers,
  type JsonProperty,
} from '../../shared/src/settings-table.js';

/** The table the cloud's settings-doc builds from a section schema: variable, default, values, what. */
function tableOf(schema: z.ZodObject): string {
  const props = (z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }).properties ?? {}) as Record<string, JsonProperty>;
  const defaults = schema.parse({});
  const rows = Object.keys(schema.shape).map((key) => {
    const p = props[key] ?? {};
    return [code(key), defaultText(defaults[key]), cell(acceptedValues(p)), cell(p.description ?? '')];
  });
  return markdownTable(['variable', 'default', 'values', 'what'], rows);
}

describe('settings table rendered from a zod schema', () => {
  const schema = z.object({
    LEVEL: z.enum(['info', 'debug']).default('info').describe('how much | is logged\nper line'),
    ENABLED: z.boolean().default(false),
    PORT: z.number().int().min(1).max(65535).default(8080),
    RATIO: z.number().min(0).default(0.5),
    SCALE: z.number().default(1),
    COUNT: z.number().int().optional(),
    NAME: z.string().optional().describe('display name'),
    TAGS: z.array(z.enum(['a', 'b'])).default(['a', 'b']),
    HOSTS: z.array(z.string()).default([]),
    WORKERS: z.union([z.enum(['auto']), z.number().int().min(1).max(64)]).default('auto'),
    LIMITS: z.object({ max: z.number() }).default({ max: 3 }),
  });

  it('gives each kind of setting its accepted values, its default and its description', () => {
    expect(tableOf(schema)).toBe(
      [
        '| variable | default | values | what |',
        '| --- | --- | --- | --- |',
        '| `LEVEL` | `info` | `info`, `debug` | how much \\| is logged per line |',
        '| `ENABLED` | `false` | `true`, `false` |  |',
        '| `PORT` | `8080` | integer 1 to 65535 |  |',
        '| `RATIO` | `0.5` | number from 0 |  |',
        '| `SCALE` | `1` | number |  |',
        // zod states the safe-integer range of an unbounded int; the table shows what the schema says.
        '| `COUNT` | unset | integer -9007199254740991 to 9007199254740991 |  |',
        '| `NAME` | unset | text | display name |',
        '| `TAGS` | `a,b` | comma-separated list of `a`, `b` |  |',
        '| `HOSTS` | `` | comma-separated list of text |  |',
        '| `WORKERS` | `auto` | `auto`, integer 1 to 64 |  |',
        '| `LIMITS` | `{"max":3}` | text |  |',
      ].join('\n'),
    );
  });
});

describe('acceptedValues', () => {
  it('reads integer and number ranges, open above or not bounded at all', () => {
    expect(acceptedValues({ type: 'integer', minimum: 0, maximum: 9 })).toBe('integer 0 to 9');
    expect(acceptedValues({ type: 'number', minimum: -1.5, maximum: 2.5 })).toBe('number -1.5 to 2.5');
    expect(acceptedValues({ type: 'integer', minimum: 5 })).toBe('integer from 5');
    expect(acceptedValues({ type: 'number', minimum: 0 })).toBe('number from 0');
    // A maximum alone is not shown: only the kind.
    expect(acceptedValues({ type: 'integer', maximum: 10 })).toBe('integer');
    expect(acceptedValues({ type: 'number' })).toBe('number');
  });

  it('lists enums as code, whatever the type of their members', () => {
    expect(acceptedValues({ type: 'string', enum: ['x', 'y'] })).toBe('`x`, `y`');
    expect(acceptedValues({ enum: [1, 2, true] })).toBe('`1`, `2`, `true`');
  });

  it('shows booleans, arrays with and without item types, and text for anything else', () => {
    expect(acceptedValues({ type: 'boolean' })).toBe('`true`, `false`');
    expect(acceptedValues({ type: 'array' })).toBe('comma-separated list of text');
    expect(acceptedValues({ type: 'array', items: { type: 'integer', minimum: 1 } })).toBe('comma-separated list of integer from 1');
    expect(acceptedValues({ type: 'string' })).toBe('text');
    expect(acceptedValues({})).toBe('text');
  });

  it('merges the alternatives of anyOf without repeating a value', () => {
    const p: JsonProperty = { anyOf: [{ enum: ['a', 'b'] }, { enum: ['b', 'c'] }, { type: 'boolean' }, { type: 'boolean' }] };
    expect(acceptedValues(p)).toBe('`a`, `b`, `c`, `true`, `false`');
    expect(acceptedValues({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toBe('text');
  });
});

describe('defaultText, code and cell', () => {
  it('renders unset, strings, arrays, numbers, booleans, null and objects', () => {
    expect(defaultText(undefined)).toBe('unset');
    expect(defaultText('info')).toBe('`info`');
    expect(defaultText('')).toBe('``');
    expect(defaultText(['a', 'b', 'c'])).toBe('`a,b,c`');
    expect(defaultText([])).toBe('``');
    expect(defaultText(0)).toBe('`0`');
    expect(defaultText(true)).toBe('`true`');
    expect(defaultText(null)).toBe('`null`');
    expect(defaultText({ a: 1 })).toBe('`{"a":1}`');
  });

  it('quotes any value as code and makes text safe inside a table cell', () => {
    expect(code(42)).toBe('`42`');
    expect(code(undefined)).toBe('`undefined`');
    expect(cell('a|b|c\nd\ne')).toBe('a\\|b\\|c d e');
    expect(cell('plain')).toBe('plain');
  });
});

describe('markdownTable', () => {
  it('writes a header, a separator per column and one line per row', () => {
    expect(markdownTable(['a', 'b'], [['1', '2'], ['3', '4']])).toBe('| a | b |\n| --- | --- |\n| 1 | 2 |\n| 3 | 4 |');
  });

  it('writes only the header when there are no rows', () => {
    expect(markdownTable(['only'], [])).toBe('| only |\n| --- |');
  });
});

describe('marked blocks of a document', () => {
  const doc = ['# Title', '<!-- begin cloud-settings (generated: do not edit) -->', 'old', 'text', '<!-- end cloud-settings -->', 'tail'].join('\n');

  it('replaces the text between the markers and keeps the markers and everything around them', () => {
    const next = replaceBetweenMarkers(doc, 'cloud-settings', '| new |');
    expect(next).toBe(['# Title', '<!-- begin cloud-settings (generated: do not edit) -->', '| new |', '<!-- end cloud-settings -->', 'tail'].join('\n'));
    expect(textBetweenMarkers(next, 'cloud-settings')).toBe('| new |');
  });

  it('reads back exactly what it wrote, also over several rounds and for multi-line text', () => {
    const table = markdownTable(['a'], [['1'], ['2']]);
    const once = replaceBetweenMarkers(doc, 'cloud-settings', table);
    expect(replaceBetweenMarkers(once, 'cloud-settings', table)).toBe(once);
    expect(textBetweenMarkers(once, 'cloud-settings')).toBe(table);
    expect(textBetweenMarkers(doc, 'cloud-settings')).toBe('old\ntext');
  });

  it('touches only the block it names', () => {
    const two = `${doc}\n<!-- begin agent-settings x -->\nagent\n<!-- end agent-settings -->\n`;
    const next = replaceBetweenMarkers(two, 'agent-settings', 'new agent');
    expect(textBetweenMarkers(next, 'agent-settings')).toBe('new agent');
    expect(textBetweenMarkers(next, 'cloud-settings')).toBe('old\ntext');
  });

  it('refuses a document without the markers, with one of them, or with them in the wrong order', () => {
    const noBegin = 'x\n<!-- end cloud-settings -->';
    const noEnd = '<!-- begin cloud-settings x -->\ny';
    const reversed = '<!-- end cloud-settings -->\n<!-- begin cloud-settings x -->';
    for (const bad of ['nothing here', noBegin, noEnd, reversed]) {
      expect(() => replaceBetweenMarkers(bad, 'cloud-settings', 't')).toThrow('the markers of cloud-settings are missing');
      expect(() => textBetweenMarkers(bad, 'cloud-settings')).toThrow('the markers of cloud-settings are missing');
    }
    // Another block's markers are not this block's.
    expect(() => textBetweenMarkers(doc, 'agent-settings')).toThrow('the markers of agent-settings are missing');
  });
});
