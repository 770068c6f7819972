/**
 * The breaking changes CHANGELOG.md declares: a line `- BREAKING: <name> ...` in its Unreleased
 * section, where <name> is an operationId, `METHOD /path` or `webhook <name>` (in backquotes or
 * not), as the compatibility check names the change.
 */

/** The text of the `## [Unreleased]` section, up to the next `## ` heading. */
export function unreleasedSection(changelog: string): string {
  const lines = changelog.split(/\r?\n/);
  const start = lines.findIndex((l) => /^## \[Unreleased\]/i.test(l));
  if (start < 0) return '';
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

const BREAKING_LINE = /^\s*[-*] BREAKING: `?((?:GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS|TRACE) \/\S*?|webhook [\w-]+|[A-Za-z][\w-]*)`?(?=[\s:,.;]|$)/;

/** The names the Unreleased section declares breaking. */
export function declaredBreaking(changelog: string): Set<string> {
  const names = new Set<string>();
  for (const line of unreleasedSection(changelog).split('\n')) {
    const m = BREAKING_LINE.exec(line);
    if (m) names.add(m[1]!);
  }
  return names;
}
