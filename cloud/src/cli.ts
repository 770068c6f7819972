/**
 * Operator command line:
 *   npx tsx cloud/src/cli.ts keygen [count]     new API keys and the SHA-256 hashes for the fleet file
 *   npx tsx cloud/src/cli.ts hash <key>         the SHA-256 hash of an existing key
 *   npx tsx cloud/src/cli.ts fleet-schema       the JSON Schema of the fleet file (docs/fleet.schema.json)
 *   npx tsx cloud/src/cli.ts check-fleet <file> validates a fleet file
 *   npx tsx cloud/src/cli.ts notifications ...  lists failing notifications, redelivers (notify/cli.ts)
 *   npx tsx cloud/src/cli.ts release ...        signing keys, signed agent releases, upload (releases/cli.ts)
 * Keys are 256 random bits, base64url; only the hash goes into the fleet file.
 */
import { randomBytes } from 'node:crypto';
import { fleetJsonSchema } from './fleet/fleet-schema.js';
import { readFleetFile } from './fleet/provision.js';
import { hashApiKey } from './http/auth.js';
import { NOTIFICATIONS_USAGE, runNotificationsCli } from './notify/cli.js';
import { RELEASE_USAGE, runReleaseCli } from './releases/cli.js';

function newApiKey(): string {
  return randomBytes(32).toString('base64url');
}

const USAGE = `usage: cli.ts keygen [count] | hash <key> | fleet-schema | check-fleet <file> | ${NOTIFICATIONS_USAGE} | ${RELEASE_USAGE}`;

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function run(args: string[]): Promise<number> {
  const [command = '', arg] = args;
  switch (command) {
    case 'keygen': {
      const count = arg ? Number(arg) : 1;
      if (!Number.isInteger(count) || count < 1 || count > 100) {
        console.error('count must be 1..100');
        return 2;
      }
      for (let i = 0; i < count; i++) {
        const key = newApiKey();
        console.log(`key:    ${key}\nsha256: ${hashApiKey(key)}`);
      }
      return 0;
    }
    case 'hash':
      if (!arg) break;
      console.log(hashApiKey(arg));
      return 0;
    case 'fleet-schema':
      console.log(JSON.stringify(fleetJsonSchema(), null, 2));
      return 0;
    case 'check-fleet': {
      if (!arg) break;
      const fleet = await readFleetFile(arg);
      console.log(`ok: ${fleet.lockers.length} lockers, ${fleet.marketplaces.length} marketplaces, ${fleet.partners.length} partners`);
      return 0;
    }
    case 'notifications':
      return runNotificationsCli(args.slice(1), process.env);
    case 'release':
      return runReleaseCli(args.slice(1), { log: (l) => console.log(l), error: (l) => console.error(l), stdin: readStdin, env: process.env });
    default:
      break;
  }
  console.error(USAGE);
  return 2;
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
