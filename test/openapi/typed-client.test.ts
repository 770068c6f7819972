/**
 * A client generated from the live document: openapi-typescript turns /docs/json into types, a
 * marketplace's program (client-program.ts) compiles against them with openapi-fetch under strict
 * settings, wrong uses do not compile, and the compiled program works against the cloud.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestCloud } from '../cloud/helpers/test-cloud.js';
import { CLIENT_PROGRAM } from './client-program.js';
import { startExampleCloud } from './example-world.js';

describe('a typed client generated from the OpenAPI document', () => {
  let tc: TestCloud;
  let dir: string;
  beforeAll(async () => {
    tc = await startExampleCloud();
    // A project of its own that finds this repository's packages (openapi-fetch, @types/node).
    dir = mkdtempSync(join(tmpdir(), 'openapi-client-'));
    symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  });
  afterAll(async () => {
    await tc?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('compiles a marketplace program against the generated types, refuses wrong uses, and runs it', async () => {
    const doc = (await tc.call('GET', '/docs/json')).body as Parameters<typeof openapiTS>[0];
    writeFileSync(join(dir, 'api.d.ts'), astToString(await openapiTS(doc)));
    const main = join(dir, 'main.ts');
    writeFileSync(main, CLIENT_PROGRAM);

    const program = ts.createProgram([main], {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: true,
      types: ['node'],
      outDir: dir,
    });
    const emitted = program.emit();
    const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].map((d) =>
      `${d.file ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
    expect(diagnostics).toEqual([]);

    const { run } = (await import(pathToFileURL(join(dir, 'main.js')).href)) as { run: (baseUrl: string) => Promise<string[]> };
    expect(await run(tc.cloud.url)).toEqual(['health ok', 'locker 101: 8 free cells', 'reserved cells 1', 'refused 400 with code 205', 'cell 6: dirty']);
  });
});
