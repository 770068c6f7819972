/**
 * The console's files as the cloud serves them (real HTTP): the page with its import map and a
 * Content-Security-Policy that admits exactly that inline script, every module the page reaches
 * served from /console (Preact and htm from the project's node_modules), revalidation by ETag,
 * 404 for anything else, and `/` sending a browser to the console.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCloud, type TestCloud } from '../cloud/helpers/test-cloud.js';

describe('the console files (/console)', () => {
  let tc: TestCloud;
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${tc.cloud.url}${path}`, { headers, redirect: 'manual' });

  beforeAll(async () => {
    tc = await startTestCloud('sqlite');
  });
  afterAll(async () => {
    await tc?.stop();
  });

  it('serves the page with a policy that admits only its own scripts and the import map', async () => {
    const res = await get('/console/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    const importMap = /<script type="importmap">(.*?)<\/script>/s.exec(html)?.[1];
    expect(importMap).toBeDefined();
    const hash = createHash('sha256').update(importMap!).digest('base64');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain(`script-src 'self' 'sha256-${hash}'`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    // Exactly one inline script: the import map; the rest are files of this origin.
    expect([...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual(['<script type="importmap">', '<script type="module" src="/console/app.js">']);
    expect((await get('/console')).status).toBe(200);
  });

  it('serves every module the page imports from /console, bare names through the import map', async () => {
    const html = await (await get('/console/')).text();
    const imports = (JSON.parse(/<script type="importmap">(.*?)<\/script>/s.exec(html)![1]!) as { imports: Record<string, string> }).imports;
    expect(Object.keys(imports).sort()).toEqual(['htm', 'htm/preact', 'preact', 'preact/hooks', 'uplot']);
    const seen = new Set<string>();
    const queue = ['/console/app.js'];
    while (queue.length > 0) {
      const path = queue.shift()!;
      if (seen.has(path)) continue;
      seen.add(path);
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(/javascript/);
      expect(res.headers.get('content-security-policy'), path).toBeTruthy();
      const source = await res.text();
      // Static imports and re-exports at the start of a statement (not the word "from" in a string).
      for (const m of source.matchAll(/^\s*(?:(?:import|export)\b[^'"]*?\bfrom\s*|import\s*)["']([^"']+)["']/gm)) {
        const spec = m[1]!;
        const target = spec.startsWith('.') ? new URL(spec, `http://x${path}`).pathname : imports[spec];
        expect(target, `${spec} in ${path}`).toMatch(/^\/console\//);
        queue.push(target!);
      }
    }
    expect([...seen]).toEqual(expect.arrayContaining(['/console/vendor/preact.js', '/console/vendor/preact-hooks.js', '/console/vendor/htm-preact.js', '/console/vendor/uplot.js', '/console/screens/locker.js', '/console/screens/reports.js']));
    expect((await get('/console/style.css')).status).toBe(200);
    // Every stylesheet the page links is served, the charts' own among them.
    for (const [, href] of html.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)) {
      const res = await get(href!);
      expect(res.status, href).toBe(200);
      expect(res.headers.get('content-type'), href).toMatch(/^text\/css/);
    }
    expect(html).toContain('/console/vendor/uplot.css');
  });

  it('revalidates by ETag and answers 404 for what it does not have', async () => {
    for (const path of ['/console/', '/console/vendor/preact.js', '/console/app.js']) {
      const first = await get(path);
      const etag = first.headers.get('etag');
      expect(etag, path).toBeTruthy();
      // fetch() would add `cache-control: no-cache` to a conditional request; a browser revalidating sends this.
      expect((await get(path, { 'if-none-match': etag!, 'cache-control': 'max-age=0' })).status, path).toBe(304);
    }
    for (const path of ['/console/nothing.js', '/console/vendor/other.js', '/console/index.html', '/console/../package.json']) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { resultCode: number }).resultCode).toBe(3);
    }
  });

  it('sends a browser at / to the console; an API client still gets the 404 envelope', async () => {
    const res = await get('/', { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/console/');
    const api = await get('/', { accept: 'application/json' });
    expect(api.status).toBe(404);
    expect(((await api.json()) as { resultCode: number }).resultCode).toBe(3);
  });
});
