/**
 * The docs check: README.md, CHANGELOG.md and docs/*.md must stand on their own and match the
 * code. Every repository path they name exists, every local link and anchor resolves, every function or class
 * they name with call syntax (`startCloud(config)`) is declared in the source, and none of them
 * points at documents outside the repository.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { parseMarkdown, type Fence, type Located, type MarkdownDoc } from './markdown.js';
import { RepoTree } from './repo-tree.js';
import { declaredSymbols } from './symbols.js';

export interface DocProblem {
  /** The doc, relative to the repository root. */
  file: string;
  line: number;
  message: string;
}

/**
 * Documents kept outside the repository: what was decided from them belongs in docs/ itself.
 * (A relative path or link that leaves the repository, like `../../shared/`, is reported where
 * paths and links are resolved.)
 */
const OUTSIDE_DOCUMENTS: readonly RegExp[] = [/\b(?:DESIGN|HARDWARE|STYLE)\.md\b/, /\bpostamat-api(?:\.md)?\b/, /\bshared\/spec\b/];

/**
 * A bare or relative name of a source, script or doc file, which must match a file of the
 * repository. Names of data files (`agent.json`, `agent.env`, `secrets.txt`) are not checked unless
 * written as a repository path (`deploy/fleet.example.json`): operators create their own.
 */
const FILE_NAME = /^[\w.-]+\.(?:ts|tsx|mts|cts|js|mjs|cjs|md|sh)$/;
/** A path with at least one slash, not preceded by what makes it part of a URL or an absolute path. */
const PATH_TOKEN = /(?<![\w./:@~$%-])(?:\.\.?\/)*[\w.-]+\/[\w./<>{}*+@-]*/g;
const PLACEHOLDER = /[<>{}*+]|\.\.\./;
const CALL_SPAN = /^(?:new\s+|await\s+)?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\((.*)\)$/s;
const CALL_IN_TEXT = /(?<![\w$.])([A-Za-z_$][\w$]*)\([^()]*\)/g;
/** A layout listing: a directory at the start of the first line, its description after two spaces. */
const TREE_START = /^[\w.-]+(?:\/[\w.-]+)*\/\s{2,}\S/;
const TREE_NAME = '[\\w.-]+(?:/[\\w.-]+)*/?';
const TREE_LINE = new RegExp(`^( *)(${TREE_NAME}(?:, ${TREE_NAME})*)(?:\\s{2,}(.*))?$`);

export function docFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  const changelog = existsSync(join(root, 'CHANGELOG.md')) ? ['CHANGELOG.md'] : [];
  return ['README.md', ...changelog, ...docs];
}

class DocsCheck {
  readonly problems: DocProblem[] = [];
  private readonly symbols: Set<string>;
  private readonly parsed = new Map<string, MarkdownDoc>();

  constructor(private readonly tree: RepoTree) {
    this.symbols = declaredSymbols(tree);
  }

  private doc(file: string): MarkdownDoc {
    let doc = this.parsed.get(file);
    if (!doc) {
      doc = parseMarkdown(readFileSync(join(this.tree.root, file), 'utf8'));
      this.parsed.set(file, doc);
    }
    return doc;
  }

  private report(file: string, line: number, message: string): void {
    if (!this.problems.some((p) => p.file === file && p.line === line && p.message === message)) {
      this.problems.push({ file, line, message });
    }
  }

  check(file: string): void {
    const source = readFileSync(join(this.tree.root, file), 'utf8');
    source.split('\n').forEach((text, i) => {
      for (const pattern of OUTSIDE_DOCUMENTS) {
        const hit = pattern.exec(text)?.[0].trim();
        if (hit) this.report(file, i + 1, `points outside the repository (${hit}): write down here what was taken from it`);
      }
    });
    const doc = this.doc(file);
    for (const link of doc.links) this.checkLink(file, link);
    for (const piece of doc.prose) {
      this.checkPaths(file, piece);
      for (const m of piece.text.matchAll(/(?<![\w./-])[\w-]+\.md\b/g)) this.checkFileName(file, piece.line, m[0]);
    }
    for (const span of doc.codeSpans) {
      this.checkPaths(file, span);
      if (FILE_NAME.test(span.text)) this.checkFileName(file, span.line, span.text);
      const call = CALL_SPAN.exec(span.text);
      if (call?.[1]) this.checkSymbol(file, span.line, call[1], span.text);
    }
    for (const fence of doc.fences) {
      if (this.isTree(fence)) this.checkTree(file, fence);
      else for (const line of fence.lines) this.checkPaths(file, line);
    }
  }

  /** At this path, or its `.ts` source when written as an import specifier (`./x.js`). */
  private has(path: string): boolean {
    return this.tree.has(path) || (path.endsWith('.js') && this.tree.has(path.replace(/\.js$/, '.ts')));
  }

  /** Relative to the doc or to the root, or ignored run-time output. */
  private exists(file: string, path: string): boolean {
    const fromDoc = posix.normalize(posix.join(posix.dirname(file), path));
    return this.has(fromDoc) || this.has(path) || this.tree.isIgnored(path);
  }

  /** Named as an outside document: reported once, by the outside-documents rule. */
  private static outside(text: string): boolean {
    return OUTSIDE_DOCUMENTS.some((p) => p.test(text));
  }

  private checkLink(file: string, link: Located): void {
    const target = link.text;
    if (/^[a-z][\w+.-]*:/i.test(target)) return; // https:, mailto:
    const [rawPath = '', anchor] = target.split('#', 2);
    const path = decodeURIComponent(rawPath);
    const resolved = path === '' ? file : posix.normalize(path.startsWith('/') ? path.slice(1) : posix.join(posix.dirname(file), path));
    if (resolved.startsWith('../') || resolved === '..') {
      this.report(file, link.line, `links outside the repository (${target})`);
      return;
    }
    if (!this.tree.has(resolved)) {
      this.report(file, link.line, `links to ${resolved}, which does not exist`);
      return;
    }
    if (anchor && resolved.endsWith('.md') && !this.doc(resolved).anchors.has(anchor)) {
      this.report(file, link.line, `links to ${resolved}#${anchor}: no heading there has that anchor`);
    }
  }

  /** Repository paths in a piece of text: `cloud/src/x.ts`, `test/demo`, `../deploy/x.yml`, `db/schema.ts`. */
  private checkPaths(file: string, piece: Located): void {
    for (const m of piece.text.matchAll(PATH_TOKEN)) {
      const path = m[0].replace(/[.,;]+$/, '');
      if (PLACEHOLDER.test(path) || this.tree.isIgnored(path) || DocsCheck.outside(path)) continue;
      const first = path.split('/')[0] ?? '';
      if (first === '..' || first === '.') {
        const resolved = posix.normalize(posix.join(posix.dirname(file), path));
        if (resolved.startsWith('../')) this.report(file, piece.line, `names ${path}, outside the repository`);
        else if (!this.has(resolved)) this.report(file, piece.line, `names ${path}, which does not exist`);
      } else if (this.tree.isTopDir(first)) {
        if (!this.has(path)) this.report(file, piece.line, `names ${path}, which does not exist`);
      } else if (FILE_NAME.test(path.split('/').pop() ?? '')) {
        // A path relative to the part a section is about (`db/schema.ts` under "Cloud").
        if (!this.exists(file, path) && !this.tree.hasSuffix(path) && !this.tree.hasSuffix(path.replace(/\.js$/, '.ts'))) {
          this.report(file, piece.line, `names ${path}, which matches no file`);
        }
      }
    }
  }

  private checkFileName(file: string, line: number, name: string): void {
    if (DocsCheck.outside(name) || this.exists(file, name) || this.tree.hasBasename(name)) return;
    this.report(file, line, `names ${name}, which matches no file`);
  }

  private checkSymbol(file: string, line: number, dotted: string, written: string): void {
    const parts = dotted.split('.');
    const name = parts[parts.length - 1] ?? dotted;
    if (this.symbols.has(name)) return;
    if ((parts[0] ?? '') in globalThis) return; // setTimeout(), JSON.parse()
    this.report(file, line, `names ${written}, but no source file declares ${name}`);
  }

  private isTree(fence: Fence): boolean {
    if (fence.lang !== '' && fence.lang !== 'text') return false;
    const first = fence.lines.find((l) => l.text.trim() !== '');
    return first !== undefined && TREE_START.test(first.text);
  }

  /** A layout listing: each name under the directory above it at a smaller indent. */
  private checkTree(file: string, fence: Fence): void {
    const parents: { indent: number; path: string }[] = [];
    for (const line of fence.lines) {
      const entry = TREE_LINE.exec(line.text);
      const names = entry?.[2]?.split(', ') ?? [];
      const description = entry ? (entry[3] ?? '') : line.text;
      if (entry && names.every((n) => n.endsWith('/') || n.includes('.'))) {
        const indent = entry[1]?.length ?? 0;
        while (parents.length > 0 && (parents[parents.length - 1]?.indent ?? 0) >= indent) parents.pop();
        const parent = parents[parents.length - 1]?.path ?? '';
        for (const name of names) {
          const path = parent + name;
          if (!this.tree.has(path) && !this.tree.isIgnored(path)) this.report(file, line.line, `lists ${path}, which does not exist`);
        }
        const last = names[names.length - 1];
        if (names.length === 1 && last?.endsWith('/')) parents.push({ indent, path: parent + last });
      }
      this.checkPaths(file, { text: description, line: line.line });
      for (const m of description.matchAll(CALL_IN_TEXT)) {
        if (m[1]) this.checkSymbol(file, line.line, m[1], m[0]);
      }
    }
  }
}

export function checkDocs(root: string): DocProblem[] {
  const check = new DocsCheck(new RepoTree(root));
  const files = docFiles(root);
  for (const file of files) check.check(file);
  return check.problems.sort((a, b) => files.indexOf(a.file) - files.indexOf(b.file) || a.line - b.line);
}
