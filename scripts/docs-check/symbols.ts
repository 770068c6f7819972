/**
 * The names the code declares, found by reading the source (no compiler): functions, classes,
 * types, constants, methods and properties, and names exported under another name. A doc naming
 * `startCloud(config)` is right when some source file declares `startCloud`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RepoTree } from './repo-tree.js';

const SOURCE = /\.(?:ts|tsx|mts|cts|js|mjs|cjs)$/;
const IDENT = '[A-Za-z_$][\\w$]*';
const DECLARATION = new RegExp(`\\b(?:function\\*?|class|interface|type|enum|const|let|var|namespace)\\s+(${IDENT})`, 'g');
/** A member at the start of a line: `name(`, `name<T>(`, `name:`, `name?:`, `name =`, after modifiers. */
const MEMBER = new RegExp(
  `^\\s*(?:(?:export|default|public|private|protected|static|readonly|async|override|abstract|declare|get|set)\\s+)*\\*?(${IDENT})\\??\\s*[(<:=]`,
  'gm',
);
const EXPORT_LIST = /\bexport\s+(?:type\s+)?\{([^}]*)\}/g;

export function declaredSymbols(tree: RepoTree): Set<string> {
  const names = new Set<string>();
  for (const file of tree.files) {
    if (!SOURCE.test(file)) continue;
    const source = readFileSync(join(tree.root, file), 'utf8');
    for (const m of source.matchAll(DECLARATION)) names.add(m[1] ?? '');
    for (const m of source.matchAll(MEMBER)) names.add(m[1] ?? '');
    for (const m of source.matchAll(EXPORT_LIST)) {
      for (const item of (m[1] ?? '').split(',')) {
        const alias = /(?:type\s+)?(\S+)(?:\s+as\s+(\S+))?/.exec(item.trim());
        if (alias?.[1]) names.add(alias[2] ?? alias[1]);
      }
    }
  }
  names.delete('');
  return names;
}
