/**
 * `npm run build:agent`: the agent as one ES module for locker controllers, dist/agent/main.js
 * (run with `node dist/agent/main.js`), so that a controller neither compiles TypeScript at
 * start (tsx) nor loads hundreds of module files. The native modules (better-sqlite3, serialport)
 * stay outside the bundle and come from node_modules; the screen's static page is copied beside it.
 */
import { cpSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'agent');

rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: [join(root, 'agent/src/main.ts')],
  outfile: join(out, 'main.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  external: ['better-sqlite3', 'serialport'],
  // The CommonJS packages inside the bundle call require() for Node's own modules.
  banner: { js: "import { createRequire as __agentRequire } from 'node:module'; const require = __agentRequire(import.meta.url);" },
  sourcemap: 'linked',
  legalComments: 'none',
  minify: true,
  logLevel: 'warning',
});
// The screen serves its page from beside the module (agent/src/screen/server.ts: ./public).
cpSync(join(root, 'agent/src/screen/public'), join(out, 'public'), { recursive: true });
process.stdout.write(`built ${join('dist', 'agent', 'main.js')}\n`);
