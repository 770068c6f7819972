/**
 * `npm run build:agent`: the agent as ES modules for locker controllers, dist/agent/main.js
 * (run with `node dist/agent/main.js`), so that a controller neither compiles TypeScript at
 * start (tsx) nor loads hundreds of module files. Everything the agent loads at start is in
 * main.js; what it imports only on a condition (the OpenTelemetry SDK, when tracing is on) is
 * split into a chunk beside it, so an agent without tracing never parses it. The native modules
 * (better-sqlite3, serialport) stay outside and come from node_modules; the screen's static page
 * is copied beside the bundle. `--outdir DIR` builds elsewhere (tests).
 *
 * Beside it: launcher.js, the launcher systemd runs before each start of the agent (it picks the
 * release slot, docs/updates.md; one self-contained file, never part of a release), and
 * build.json, what the build is (version, link protocol, store schema) for `cli.ts release sign`.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { STORE_COMPATIBLE_FROM, STORE_SCHEMA } from '../agent/src/store/database.js';
import { PROTOCOL_VERSION } from '../shared/src/protocol.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdirArg = process.argv.indexOf('--outdir');
const out = outdirArg >= 0 ? resolve(process.argv[outdirArg + 1] ?? '') : join(root, 'dist', 'agent');

rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: { main: join(root, 'agent/src/main.ts') },
  outdir: out,
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  external: ['better-sqlite3', 'serialport'],
  // The CommonJS packages inside the bundle call require() for Node's own modules (one per chunk).
  banner: { js: "import { createRequire as __agentRequire } from 'node:module'; const require = __agentRequire(import.meta.url);" },
  sourcemap: 'linked',
  legalComments: 'none',
  minify: true,
  logLevel: 'warning',
});
// The screen serves its page from beside the module (agent/src/screen/server.ts: ./public).
cpSync(join(root, 'agent/src/screen/public'), join(out, 'public'), { recursive: true });
await build({
  entryPoints: [join(root, 'agent/src/launcher/main.ts')],
  outfile: join(out, 'launcher.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  external: ['better-sqlite3', 'serialport'],
  banner: { js: "import { createRequire as __agentRequire } from 'node:module'; const require = __agentRequire(import.meta.url);" },
  legalComments: 'none',
  minify: true,
  logLevel: 'warning',
});
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; engines?: { node?: string } };
const info = { version: pkg.version, protocol: PROTOCOL_VERSION, store: { schema: STORE_SCHEMA, compatibleFrom: STORE_COMPATIBLE_FROM }, node: pkg.engines?.node };
writeFileSync(join(out, 'build.json'), `${JSON.stringify(info, null, 2)}\n`);
process.stdout.write(`built ${join(out, 'main.js')} and ${join(out, 'launcher.js')}\n`);
