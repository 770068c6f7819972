/**
 * The operator's web console at /console: static ES modules (cloud/console/public/) and the
 * browser builds of Preact and htm taken from the project's own node_modules, tied together by an
 * import map, with no build step and nothing fetched from elsewhere. The page talks only to the
 * /operator JSON API (session cookie and X-CSRF-Token).
 *
 * Content-Security-Policy: scripts only from this origin, plus the one inline script the page has,
 * the import map, pinned by its sha256. Every file is revalidated (`no-cache` with an ETag), so a
 * new version of the cloud is never mixed with a cached old module.
 */
import fastifyStatic from '@fastify/static';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ResultCode } from '../../../../shared/src/enums.js';
import { invalidRequestMessage, sendEnvelope } from '../error-handler.js';

export const CONSOLE_PREFIX = '/console';

const PUBLIC_DIR = fileURLToPath(new URL('../../../console/public/', import.meta.url));

/** Bare specifier -> the package entry the browser loads (each an ES module built for browsers). */
const VENDOR_MODULES: Record<string, { file: string; specifier: string }> = {
  'preact.js': { specifier: 'preact', file: 'preact.module.js' },
  'preact-hooks.js': { specifier: 'preact/hooks', file: 'hooks.module.js' },
  'htm.js': { specifier: 'htm', file: 'htm.module.js' },
  'htm-preact.js': { specifier: 'htm/preact', file: 'index.module.js' },
  // uPlot (MIT, no dependencies, an ES module build): the Reports screen's charts.
  'uplot.js': { specifier: 'uplot', file: 'uPlot.esm.js' },
};

/** Stylesheets of the vendor modules, linked from index.html (not in the import map). */
const VENDOR_STYLES: Record<string, { file: string; specifier: string }> = {
  'uplot.css': { specifier: 'uplot', file: 'uPlot.min.css' },
};

interface Asset {
  body: Buffer;
  etag: string;
  type: string;
}

const sha256 = (data: string | Buffer, encoding: 'base64' | 'hex'): string => createHash('sha256').update(data).digest(encoding);

function asset(body: Buffer, type: string): Asset {
  return { body, type, etag: `"${sha256(body, 'hex').slice(0, 32)}"` };
}

/** The browser build next to the entry Node resolves for `specifier` (same folder, `.module.js`). */
function vendorFile(specifier: string, file: string): Buffer {
  return readFileSync(join(dirname(fileURLToPath(import.meta.resolve(specifier))), file));
}

function loadAssets(): { index: Asset; vendor: Map<string, Asset>; importMapHash: string } {
  const vendor = new Map([
    ...Object.entries(VENDOR_MODULES).map(([name, m]) => [name, asset(vendorFile(m.specifier, m.file), 'text/javascript; charset=utf-8')] as const),
    ...Object.entries(VENDOR_STYLES).map(([name, m]) => [name, asset(vendorFile(m.specifier, m.file), 'text/css; charset=utf-8')] as const),
  ]);
  const importMap = JSON.stringify({ imports: Object.fromEntries(Object.entries(VENDOR_MODULES).map(([name, m]) => [m.specifier, `${CONSOLE_PREFIX}/vendor/${name}`])) });
  const html = readFileSync(join(PUBLIC_DIR, 'index.html'), 'utf8').replace('<!-- importmap -->', `<script type="importmap">${importMap}</script>`);
  return { index: asset(Buffer.from(html), 'text/html; charset=utf-8'), vendor, importMapHash: sha256(importMap, 'base64') };
}

function contentSecurityPolicy(importMapHash: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' 'sha256-${importMapHash}'`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function send(req: FastifyRequest, reply: FastifyReply, a: Asset): FastifyReply {
  reply.header('ETag', a.etag).header('Content-Type', a.type);
  if (req.headers['if-none-match'] === a.etag) return reply.code(304).send();
  return reply.send(a.body);
}

/** The console's own files, under /console. */
const consoleFiles: FastifyPluginAsync = async (app) => {
  const { index, vendor, importMapHash } = loadAssets();
  const csp = contentSecurityPolicy(importMapHash);

  // Encapsulated: only the routes of this plugin get these headers.
  app.addHook('onSend', async (_req, reply) => {
    reply.header('Content-Security-Policy', csp);
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('Cache-Control', 'no-cache');
  });
  // A missing file is a 404 (the app's handler would call it 405: the wildcard route matches every path).
  app.setNotFoundHandler((req, reply) =>
    sendEnvelope(reply, ResultCode.InvalidRequest, invalidRequestMessage({ ru: `нет файла ${req.url.split('?')[0] ?? ''}`, en: `no file ${req.url.split('?')[0] ?? ''}` }), 404),
  );

  const hide = { schema: { hide: true } };
  app.get('/', hide, (req, reply) => send(req, reply, index));
  app.get<{ Params: { name: string } }>('/vendor/:name', hide, (req, reply) => {
    const a = vendor.get(req.params.name);
    return a ? send(req, reply, a) : reply.callNotFound();
  });
  await app.register(fastifyStatic, {
    root: PUBLIC_DIR,
    prefix: '/',
    index: false,
    cacheControl: false,
    wildcard: true,
    decorateReply: false,
    // index.html only with its import map filled in (above).
    allowedPath: (path) => path !== '/index.html',
  });
};

/** Registered at the app's root: /console and /console/... (the page at both); a browser at `/` is redirected there. */
export const consoleRoutes: FastifyPluginAsync = async (app) => {
  const hide = { schema: { hide: true } };
  // Only a browser (asking for HTML) is sent on; an API client still gets the 404 envelope.
  app.get('/', hide, (req, reply) =>
    /\btext\/html\b/.test(req.headers.accept ?? '')
      ? reply.redirect(`${CONSOLE_PREFIX}/`)
      : sendEnvelope(reply, ResultCode.InvalidRequest, invalidRequestMessage({ ru: `нет операции ${req.method} /`, en: `no operation ${req.method} /` }), 404),
  );
  await app.register(consoleFiles, { prefix: CONSOLE_PREFIX });
};
