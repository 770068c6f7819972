/**
 * Just enough Markdown for the docs check: headings (as GitHub anchors), prose, inline code spans,
 * fenced blocks and links, each with its line number.
 */

export interface Located {
  text: string;
  line: number;
}

export interface Fence {
  lang: string;
  line: number;
  lines: Located[];
}

export interface MarkdownDoc {
  /** GitHub's anchors of the headings, duplicates numbered (`x`, `x-1`, ...). */
  anchors: Set<string>;
  /** Text outside code, one entry per line, code spans cut out, links reduced to their text. */
  prose: Located[];
  codeSpans: Located[];
  fences: Fence[];
  /** Link and image targets as written (`docs/x.md#part`, `https://...`). */
  links: Located[];
}

/** GitHub's heading anchor: lower case, punctuation dropped (letters of any script kept), spaces to hyphens. */
export function headingAnchor(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** Splits one line into prose and inline code spans (backtick runs of equal length). */
function splitCodeSpans(line: string): { prose: string; spans: string[] } {
  const spans: string[] = [];
  let prose = '';
  let i = 0;
  while (i < line.length) {
    if (line[i] !== '`') {
      prose += line[i];
      i++;
      continue;
    }
    const run = /^`+/.exec(line.slice(i))?.[0] ?? '`';
    const close = line.indexOf(run, i + run.length);
    if (close < 0) {
      prose += run;
      i += run.length;
      continue;
    }
    spans.push(line.slice(i + run.length, close).trim());
    prose += ' ';
    i = close + run.length;
  }
  return { prose, spans };
}

const LINK = /!?\[(?:[^\]]|\][^(])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const REFERENCE_LINK = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/;

export function parseMarkdown(source: string): MarkdownDoc {
  const doc: MarkdownDoc = { anchors: new Set(), prose: [], codeSpans: [], fences: [], links: [] };
  const seen = new Map<string, number>();
  let fence: { marker: string; block: Fence } | undefined;
  source.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const text = raw.replace(/\r$/, '');
    if (fence) {
      if (text.trim().startsWith(fence.marker) && text.trim().replace(/[`~]/g, '') === '') fence = undefined;
      else fence.block.lines.push({ text, line });
      return;
    }
    const opening = /^\s{0,3}(`{3,}|~{3,})\s*([\w+-]*)/.exec(text);
    if (opening) {
      const block: Fence = { lang: opening[2] ?? '', line, lines: [] };
      doc.fences.push(block);
      fence = { marker: opening[1] ?? '```', block };
      return;
    }
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (heading) {
      const base = headingAnchor(heading[1] ?? '');
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      doc.anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    const reference = REFERENCE_LINK.exec(text);
    if (reference) {
      doc.links.push({ text: reference[1] ?? '', line });
      return;
    }
    const { prose, spans } = splitCodeSpans(text);
    for (const span of spans) doc.codeSpans.push({ text: span, line });
    for (const m of prose.matchAll(LINK)) doc.links.push({ text: m[1] ?? '', line });
    doc.prose.push({ text: prose.replace(LINK, (link) => /^!?\[(.*)\]/s.exec(link)?.[1] ?? ''), line });
  });
  return doc;
}
