/**
 * Text of the generated settings tables in docs/operations.md: accepted values and defaults as a
 * settings schema states them (read through zod's JSON Schema), and the marked blocks the tables
 * are written into. Pure text; each process builds its own table from its own schema.
 */

/** The part of a JSON Schema property a settings table shows. */
export interface JsonProperty {
  type?: string;
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  anyOf?: JsonProperty[];
  items?: JsonProperty;
}

export const code = (v: unknown): string => `\`${String(v)}\``;

/** Text safe inside a table cell. */
export const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The accepted values, as the schema states them. */
export function acceptedValues(p: JsonProperty): string {
  if (p.anyOf) return [...new Set(p.anyOf.flatMap((a) => acceptedValues(a).split(', ')))].join(', ');
  if (p.enum) return p.enum.map(code).join(', ');
  if (p.type === 'boolean') return '`true`, `false`';
  if (p.type === 'array') return `comma-separated list of ${p.items ? acceptedValues(p.items) : 'text'}`;
  if (p.type === 'integer' || p.type === 'number') {
    const kind = p.type === 'integer' ? 'integer' : 'number';
    if (p.minimum !== undefined && p.maximum !== undefined) return `${kind} ${p.minimum} to ${p.maximum}`;
    if (p.minimum !== undefined) return `${kind} from ${p.minimum}`;
    return kind;
  }
  return 'text';
}

export function defaultText(value: unknown): string {
  if (value === undefined) return 'unset';
  if (Array.isArray(value)) return code(value.join(','));
  return code(typeof value === 'string' ? value : JSON.stringify(value));
}

export function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Replaces the text between `<!-- begin NAME ... -->` and `<!-- end NAME -->` (markers kept). */
export function replaceBetweenMarkers(doc: string, name: string, text: string): string {
  const begin = doc.indexOf(`<!-- begin ${name} `);
  const beginEnd = begin < 0 ? -1 : doc.indexOf('-->', begin) + 3;
  const end = doc.indexOf(`<!-- end ${name} -->`);
  if (begin < 0 || end < beginEnd) throw new Error(`the markers of ${name} are missing`);
  return `${doc.slice(0, beginEnd)}\n${text}\n${doc.slice(end)}`;
}

/** The text between the markers of NAME, as replaceBetweenMarkers() writes it. */
export function textBetweenMarkers(doc: string, name: string): string {
  const begin = doc.indexOf(`<!-- begin ${name} `);
  const end = doc.indexOf(`<!-- end ${name} -->`);
  if (begin < 0 || end < begin) throw new Error(`the markers of ${name} are missing`);
  return doc.slice(doc.indexOf('-->', begin) + 3, end).replace(/^\n/, '').replace(/\n$/, '');
}
