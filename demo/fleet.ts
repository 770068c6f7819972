/**
 * The demo's fleet: a fleet file (the example by default) with every marketplace's receiver
 * pointed at the demo receiver and its CA, and every locker's MQTT password set to the demo one,
 * written under the demo's data folder for the cloud to load. The plain demo keys are known only
 * where they match the file's hashes (docs/api.md lists those of the example fleet).
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { Fleet, FleetInput } from '../cloud/src/fleet/fleet-schema.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The MQTT password the demo gives locker `id` (its hash goes into the generated fleet file). */
export const lockerPassword = (id: number): string => `demo-locker-${id}-mqtt`;

export interface DemoKeys {
  /** Marketplace id -> its X-Service-Api-Key. */
  marketplaces: Map<string, string>;
  /** Partner id -> its Partner-Api-Key. */
  partners: Map<string, string>;
  /** Operator name -> its X-Operator-Api-Key. */
  operators: Map<string, string>;
}

/** The documented demo keys (`demo-<id>-key`, `demo-operator-key`) that the fleet's hashes accept. */
export function knownDemoKeys(fleet: Fleet): DemoKeys {
  const pick = <T extends { apiKeySha256: string[] }>(owners: T[], name: (o: T) => string, candidates: (o: T) => string[]) =>
    new Map(
      owners.flatMap((o) => {
        const key = candidates(o).find((k) => o.apiKeySha256.includes(sha256(k)));
        return key ? [[name(o), key] as const] : [];
      }),
    );
  return {
    marketplaces: pick(fleet.marketplaces, (m) => m.id, (m) => [`demo-${m.id}-key`]),
    partners: pick(fleet.partners, (p) => p.id, (p) => [`demo-${p.id}-key`]),
    operators: pick(fleet.operators, (o) => o.name, (o) => [`demo-${o.name}-key`, 'demo-operator-key']),
  };
}

/** The receiver login and password of each marketplace: the fleet file's, or made up for the demo. */
export function receiverCredentials(fleet: Fleet): Map<string, { login: string; password: string; hmacSecret?: string | undefined }> {
  return new Map(
    fleet.marketplaces.map((m) => [
      m.id,
      {
        login: m.receiver?.login ?? 'demo',
        password: m.receiver?.password ?? `demo-${m.id}-receiver-password`,
        hmacSecret: m.receiver?.hmacSecret,
      },
    ]),
  );
}

/** The fleet the demo's cloud loads; written to `path`. */
export function writeDemoFleet(fleet: Fleet, path: string, receiver: { url: (marketplaceId: string) => string; caFile: string }): FleetInput {
  const credentials = receiverCredentials(fleet);
  const demo: FleetInput = {
    // Sandbox lockers get their MQTT password from the cloud, which runs them.
    lockers: fleet.lockers.map((l) => (l.sandbox ? l : { ...l, mqttPasswordSha256: sha256(lockerPassword(l.id)) })),
    marketplaces: fleet.marketplaces.map((m) => {
      const c = credentials.get(m.id)!;
      return {
        ...m,
        receiver: {
          bodyForm: m.receiver?.bodyForm ?? 'object',
          ...(c.hmacSecret ? { hmacSecret: c.hmacSecret } : {}),
          url: receiver.url(m.id),
          login: c.login,
          password: c.password,
          caFile: receiver.caFile,
        },
      };
    }),
    partners: fleet.partners,
    operators: fleet.operators,
  };
  writeFileSync(path, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return demo;
}
