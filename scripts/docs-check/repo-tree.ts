/**
 * The repository's files as the docs may name them: every file under the root except what git
 * ignores (node_modules, data/, coverage/, ...), read from the working tree so that a file added
 * but not yet committed counts too.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The subset of .gitignore this repository uses: `name/`, `name` and `*.ext`-style globs, matched per path segment. */
function ignoreMatcher(root: string): (segment: string) => boolean {
  const file = join(root, '.gitignore');
  const patterns = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('!'))
    : [];
  const regexes = ['.git', ...patterns].map((p) => {
    const body = p.replace(/^\//, '').replace(/\/$/, '');
    const escaped = body.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]');
    return new RegExp(`^${escaped}$`);
  });
  return (segment) => regexes.some((r) => r.test(segment));
}

export class RepoTree {
  /** Every file, relative to the root, with forward slashes. */
  readonly files: readonly string[];
  private readonly paths = new Set<string>();
  private readonly basenames = new Set<string>();
  private readonly ignoredSegment: (segment: string) => boolean;

  constructor(readonly root: string) {
    this.ignoredSegment = ignoreMatcher(root);
    const files: string[] = [];
    const walk = (rel: string): void => {
      for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
        if (this.ignoredSegment(entry.name)) continue;
        const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
        if (entry.isDirectory()) {
          this.paths.add(path);
          walk(path);
        } else {
          files.push(path);
          this.paths.add(path);
          this.basenames.add(entry.name);
        }
      }
    };
    walk('');
    this.files = files.sort();
  }

  /** A file or directory at this repository-relative path (a trailing slash is allowed). */
  has(path: string): boolean {
    return this.paths.has(path.replace(/\/+$/, '').replace(/^\.\//, ''));
  }

  /** Some file has this name, in any directory. */
  hasBasename(name: string): boolean {
    return this.basenames.has(name);
  }

  /** Some file or directory path ends with this relative path (`db/schema.ts` in a section about the cloud). */
  hasSuffix(path: string): boolean {
    const tail = `/${path.replace(/\/+$/, '')}`;
    for (const p of this.paths) if (p.endsWith(tail)) return true;
    return false;
  }

  /** A top-level directory of the repository (what a path like `cloud/src/x.ts` starts with). */
  isTopDir(name: string): boolean {
    return !name.includes('/') && this.paths.has(name) && !this.files.includes(name);
  }

  /** Git ignores it (run-time output such as data/ or *.sqlite): docs may name it without it existing. */
  isIgnored(path: string): boolean {
    return path.split('/').some((segment) => segment !== '' && this.ignoredSegment(segment));
  }
}
