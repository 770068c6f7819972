/**
 * The docs check (`npm run check:docs`): the repository's own docs pass it, and on a small
 * repository made here it reports each kind of mistake at its line, through the same CLI CI runs.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDocs } from '../../scripts/docs-check/check.js';

const repoRoot = resolve(import.meta.dirname, '../..');

function runCli(root: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'scripts/check-docs.ts'), root], { cwd: repoRoot });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('the docs of this repository', () => {
  it('name only paths, links, anchors and functions that exist, and nothing outside the repository', () => {
    expect(checkDocs(repoRoot)).toEqual([]);
  });
});

describe('the docs check', () => {
  let root: string;

  /** A small repository: a cloud with two modules, a script, ignored run-time output, and docs. */
  function repo(docs: Record<string, string>): string {
    root = mkdtempSync(join(tmpdir(), 'docs-check-'));
    const files: Record<string, string> = {
      '.gitignore': 'node_modules/\ndata/\n*.sqlite\n',
      'cloud/src/server.ts': 'export async function buildServer(opts: unknown) {\n  return opts;\n}\n',
      'shared/src/enums.ts': 'export enum OrderState {\n  New = 0,\n}\n',
      'cloud/src/db/schema.ts': 'export interface Database {\n  lockers: unknown;\n}\nclass Store {\n  eventsAfter(dseq: number) {}\n}\n',
      'deploy/passwords.sh': '#!/bin/sh\n',
      'data/demo/cloud.sqlite': '',
      'README.md': '# Example\n',
      ...docs,
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  }

  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const messages = (r: string) => checkDocs(r).map((p) => `${p.file}:${p.line}: ${p.message}`);

  it('accepts a doc whose every name exists', () => {
    const r = repo({
      'docs/guide.md': [
        '# Guide',
        '',
        '## The cloud',
        '',
        'The server is in `cloud/src/server.ts` (cloud/src/ as a whole), tables in `db/schema.ts`; start it',
        'with `buildServer(opts)`, read with `store.eventsAfter(dseq)`, wait with `setTimeout()`.',
        'See [the cloud](#the-cloud), [the readme](../README.md) and [passwords](../deploy/passwords.sh);',
        'the states are in ../shared/src/enums.ts, [here](../shared/src/enums.ts) too.',
        'Write your own `agent.json`; the demo keeps its state in `data/demo/` and `data/new.sqlite`.',
        'Answers: `http://127.0.0.1:8080/docs`, `PUT /api/v4/auth/delivery/smartorder/create`.',
        '',
        '```',
        'cloud/src/       the service',
        '  server.ts        buildServer(): the HTTP server',
        '  db/              the schema',
        '```',
      ].join('\n'),
    });
    expect(messages(r)).toEqual([]);
  });

  it('reports paths and file names that do not exist', () => {
    const r = repo({
      'docs/guide.md': ['# Guide', '', 'Moved: `cloud/src/app.ts`, cloud/src/gone/ and `routes.ts`.', 'Also [old](../cloud/src/old.ts).'].join('\n'),
    });
    expect(messages(r)).toEqual([
      'docs/guide.md:3: names cloud/src/gone/, which does not exist',
      'docs/guide.md:3: names cloud/src/app.ts, which does not exist',
      'docs/guide.md:3: names routes.ts, which matches no file',
      'docs/guide.md:4: links to cloud/src/old.ts, which does not exist',
    ]);
  });

  it('reports an anchor that no heading has', () => {
    const r = repo({ 'docs/guide.md': '# Guide\n\n## Settings\n\n[ok](#settings), [gone](#the-settings), [readme](../README.md#setup)\n' });
    expect(messages(r)).toEqual([
      'docs/guide.md:5: links to docs/guide.md#the-settings: no heading there has that anchor',
      'docs/guide.md:5: links to README.md#setup: no heading there has that anchor',
    ]);
  });

  it('reports functions and classes that no source file declares, in text and in a layout listing', () => {
    const r = repo({
      'docs/guide.md': [
        '# Guide',
        '',
        'Build it with `buildApp()` or `new CloudServer(config)`.',
        '```',
        'cloud/src/       the service',
        '  server.ts        startServer(): the HTTP server',
        '  app.ts           the app',
        '```',
      ].join('\n'),
    });
    expect(messages(r)).toEqual([
      'docs/guide.md:3: names buildApp(), but no source file declares buildApp',
      'docs/guide.md:3: names new CloudServer(config), but no source file declares CloudServer',
      'docs/guide.md:6: names startServer(), but no source file declares startServer',
      'docs/guide.md:7: lists cloud/src/app.ts, which does not exist',
    ]);
  });

  it('reports every pointer to documents outside the repository', () => {
    const r = repo({
      'README.md': '# Example\n\nThe design is in DESIGN.md.\n',
      'docs/guide.md': [
        '# Guide',
        '',
        'The contract is `spec/postamat-api.md`; the frames are in [HARDWARE.md](../../shared/HARDWARE.md).',
        'Style: see ../shared/STYLE.md; the rest in ../../shared/notes.txt and [notes](../../shared/notes.txt).',
      ].join('\n'),
    });
    expect(messages(r)).toEqual([
      'README.md:3: points outside the repository (DESIGN.md): write down here what was taken from it',
      'docs/guide.md:3: points outside the repository (HARDWARE.md): write down here what was taken from it',
      'docs/guide.md:3: points outside the repository (postamat-api.md): write down here what was taken from it',
      'docs/guide.md:3: links outside the repository (../../shared/HARDWARE.md)',
      'docs/guide.md:4: points outside the repository (STYLE.md): write down here what was taken from it',
      'docs/guide.md:4: links outside the repository (../../shared/notes.txt)',
      'docs/guide.md:4: names ../../shared/notes.txt, outside the repository',
    ]);
  });

  it('exits 1 with one line per problem from the command line, 0 when all is well', async () => {
    const bad = await runCli(repo({ 'docs/guide.md': '# Guide\n\nSee `cloud/src/gone.ts`.\n' }));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('docs/guide.md:3: names cloud/src/gone.ts, which does not exist');
    rmSync(root, { recursive: true, force: true });
    const good = await runCli(repo({ 'docs/guide.md': '# Guide\n\nSee `cloud/src/server.ts`.\n' }));
    expect(good.stderr).not.toContain('docs/guide.md');
    expect(good.code).toBe(0);
  });
});
