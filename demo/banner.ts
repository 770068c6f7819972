/** What `npm start` prints once everything runs: where things are, the keys, and a parcel by hand. */
import { relative } from 'node:path';
import { localDate } from '../cloud/src/lockers/locker-time.js';
import type { DemoLocker, RunningDemo } from './demo.js';

const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** "cell N is lock N of board 0" when the locker is wired that simply; otherwise null. */
function simpleWiring(locker: DemoLocker): string | null {
  const simple = locker.cellIds.every((id) => {
    const l = locker.lockOf(id);
    return l.bus === 'main' && l.board === 0 && l.lock === id;
  });
  return simple ? 'cell N is lock N of board 0' : null;
}

function keyList(keys: Map<string, string>): string {
  return [...keys].map(([owner, key]) => `${key} (${owner})`).join(', ') || '(none of the documented demo keys match the fleet file)';
}

/** HAND-<MMDD>-<hhmmss> of this start (UTC): new at every start, short enough to type. */
function handId(now: number): string {
  const iso = new Date(now).toISOString();
  return `HAND-${iso.slice(5, 10).replace('-', '')}-${iso.slice(11, 19).replace(/:/g, '')}`;
}

/** The marketplace keys, production ones first; the sandbox's (docs/sandbox.md) on their own line. */
function splitKeys(demo: RunningDemo): { production: Map<string, string>; sandbox: Map<string, string> } {
  const sandbox = new Set(demo.sandboxMarketplaces);
  const all = [...demo.keys.marketplaces];
  return { production: new Map(all.filter(([id]) => !sandbox.has(id))), sandbox: new Map(all.filter(([id]) => sandbox.has(id))) };
}

export function banner(demo: RunningDemo, now: number, traffic: string): string {
  const where = relative(process.cwd(), demo.dataDir) || '.';
  const keys = splitKeys(demo);
  const caFile = relative(process.cwd(), demo.caFile);
  const lines = [
    `Parcel-locker network running; state in ${where}/ (kept across restarts). Ctrl-C stops it.`,
    '',
    `Cloud API    ${demo.apiUrl}/api/v4 (marketplaces), ${demo.apiUrl}/api/v1 (couriers), ${demo.apiUrl}/operator`,
    `API docs     ${demo.apiUrl}/docs`,
    `Console      ${demo.apiUrl}/console  the operators' web console; sign in with ${[...demo.keys.operators.values()][0] ?? 'an operator key of the fleet file'}`,
    `MQTT broker  ${demo.brokerUrl}`,
    `Receiver     ${demo.receiverUrl}  what the marketplaces were told, pick-up codes included (CA: ${caFile})`,
    '',
    `Keys         X-Service-Api-Key: ${keyList(keys.production)}`,
    `             sandbox X-Service-Api-Key: ${keyList(keys.sandbox)} (docs/sandbox.md)`,
    `             Partner-Api-Key: ${keyList(demo.keys.partners)}`,
    `             X-Operator-Api-Key: ${keyList(demo.keys.operators)}`,
    '',
    'Lockers      screen                   simulator (SIM_URL)',
    ...demo.lockers.map(
      (l) => `  ${String(l.id).padEnd(10)} ${l.screenUrl.padEnd(24)} ${l.simUrl.padEnd(24)}${l.hasScanner ? '' : ' no scanner: type barcodes on the screen'}`,
    ),
    ...demo.sandboxLockers.map(
      (l) => `  ${String(l.id).padEnd(10)} ${(l.screenUrl ?? 'not running').padEnd(24)} ${(l.simUrl ?? '').padEnd(24)} sandbox: run by the cloud`,
    ),
    '',
  ];
  const locker = demo.lockers.find((l) => l.hasScanner) ?? demo.lockers[0];
  const mpKey = [...keys.production.values()][0] ?? '<marketplace key>';
  const partnerKey = [...demo.keys.partners.values()][0] ?? '<partner key>';
  if (locker) {
    const today = localDate(now, locker.timezone);
    // Fresh ids at every start: an order picked up in an earlier run keeps its barcode, so a
    // walkthrough that reused HAND-1 would replay that order and the scan would say not_loadable.
    const id = handId(now);
    const barcode = `${id}-P1`;
    const order = {
      externalId: id,
      postamatId: locker.id,
      dateDelivery: today,
      parcels: [{ barcode, dimension: { length: 300, width: 200, height: 80 } }],
      clientInvoice: { cart: { items: [], prePaymentSum: 0 } },
      notification: { emails: [], phones: ['+79160000001'] },
    };
    const route = {
      courier: { externalId: 'CR-1', email: 'courier@fast-courier.example', phone: '+79035550011' },
      route: { carNumber: 'A123BC77', date: today, externalId: `RT-${id}`, postamatIds: [locker.id] },
    };
    const sim = `SIM_URL=${locker.simUrl} npm run sim --`;
    const wiring = simpleWiring(locker);
    const json = "-H 'Content-Type: application/json'";
    lines.push(
      `A parcel by hand (locker ${locker.id}, delivery today), from another shell in this folder:`,
      '  1. an order with a cell reservation:',
      `     curl -s -X PUT ${demo.apiUrl}/api/v4/auth/delivery/smartorder/create -H 'X-Service-Api-Key: ${mpKey}' ${json} -d ${q(JSON.stringify(order))}`,
      "  2. a route sheet; its postamatAccessCode is the courier's code:",
      `     curl -s -X PUT ${demo.apiUrl}/api/v1/auth/couriers/courier-with-route -H 'Partner-Api-Key: ${partnerKey}' ${json} -d ${q(JSON.stringify(route))}`,
      `  3. open ${locker.screenUrl} (it starts in Russian; EN at the top right switches), choose "Я курьер" (I'm a courier),`,
      `     type the code; scan the parcel, then close the cell the screen names${wiring ? ` (${wiring})` : ''}:`,
      locker.hasScanner ? `     ${sim} scan ${barcode}` : `     (type ${barcode} on the screen: this locker has no scanner)`,
      `     ${sim} close 0 N`,
      '     then "Выйти" (Sign out) ends the courier\'s session.',
      `  4. the receiver (${demo.receiverUrl}) shows status 3 and the pick-up code; on the screen choose "Получить посылку"`,
      '     (Collect a parcel), type it, close the cell the same way; the receiver shows status 2. The order as the marketplace sees it:',
      `     curl -s -X POST ${demo.apiUrl}/api/v4/auth/delivery/order/detail -H 'X-Service-Api-Key: ${mpKey}' ${json} -d ${q(JSON.stringify({ barcode, courierExternalId: 'CR-1' }))}`,
      `     and what the marketplace was told: curl -s --cacert ${caFile} ${demo.receiverUrl}/api/notifications?order=${id}`,
      '  Each start prints new ids, so the steps work again after a restart.',
      '',
    );
  }
  lines.push(`Traffic      ${traffic}`);
  return lines.join('\n');
}
