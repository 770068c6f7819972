/**
 * A marketplace's client program, as an integrator writes it against the types openapi-typescript
 * generates from the document (`./api.js`, written beside it by typed-client.test.ts) and
 * openapi-fetch. It must compile under strict settings; the lines marked @ts-expect-error must
 * not (the types are precise, not `any`); run against the example fleet, it returns what it saw.
 */
export const CLIENT_PROGRAM = `
import createClient from 'openapi-fetch';
import type { components, paths, webhooks } from './api.js';

type ReservationResult = components['schemas']['ReservationResult'];
type ErrorEnvelope = components['schemas']['ErrorEnvelope'];
type OrderStatusBody = webhooks['order-status']['post']['requestBody']['content']['application/json'];

/** The receiver side: what an order-status notification carries. */
export function describeStatus(body: OrderStatusBody): string {
  const one = Array.isArray(body) ? body[0] : body;
  return one ? \`\${one.id} \${one.barcode}: \${one.event_id} \${one.status}\` : 'empty';
}

export async function run(baseUrl: string): Promise<string[]> {
  const seen: string[] = [];
  const shop = createClient<paths>({ baseUrl, headers: { 'X-Service-Api-Key': 'demo-shop-one-key' } });

  const health = await shop.GET('/health');
  if (health.data) seen.push(\`health \${health.data.status}\`);

  const locker = await shop.GET('/api/v4/auth/postamat/get-by-id', { params: { query: { postamatId: 101, cellsType: 1 } } });
  if (locker.data) seen.push(\`locker \${locker.data.id}: \${locker.data.cells.filter((c) => c.free).length} free cells\`);

  const created = await shop.PUT('/api/v4/auth/delivery/smartorder/create', {
    body: {
      externalId: 'CLIENT-1',
      postamatId: 101,
      dateDelivery: '2030-03-05',
      parcels: [{ barcode: 'CLIENT-1-P1', dimension: { length: 300, width: 200, height: 80 } }],
      clientInvoice: { cart: { items: [], prePaymentSum: 0 } },
      notification: { emails: [], phones: ['+79161234567'] },
    },
  });
  const result: ReservationResult | undefined = created.data;
  if (result) seen.push(\`reserved cells \${result.reserved.map((c) => c.cellId).join(',')}\`);

  const refused = await shop.PUT('/api/v4/auth/delivery/order/update', { body: { externalId: 'CLIENT-404', parcels: [{ barcode: 'CLIENT-404-P1' }] } });
  const envelope: ErrorEnvelope | undefined = refused.error;
  if (envelope?.resultCode === 205) seen.push(\`refused \${refused.response.status} with code \${envelope.resultCode}\`);

  const ops = createClient<paths>({ baseUrl, headers: { 'X-Operator-Api-Key': 'demo-operator-key' } });
  const flags = await ops.PUT('/operator/postamats/{postamatId}/cells/{cellId}/flags', { params: { path: { postamatId: 101, cellId: 6 } }, body: { dirty: true } });
  if (flags.data) seen.push(\`cell \${flags.data.cellId}: \${flags.data.flags.join(',')}\`);
  return seen;
}

/** Never called: each line must fail to compile. */
export function wrongUses(shop: ReturnType<typeof createClient<paths>>, envelope: ErrorEnvelope): void {
  // @ts-expect-error postamatId is required
  void shop.PUT('/api/v4/auth/delivery/order/create', { body: { externalId: 'X', dateDelivery: '2030-03-05', parcels: [], clientInvoice: { cart: { items: [], prePaymentSum: 0 } }, notification: { emails: [], phones: [] } } });
  // @ts-expect-error no such operation
  void shop.GET('/api/v4/auth/postamat/nothing');
  // @ts-expect-error 33 is no result code
  const code: ErrorEnvelope['resultCode'] = 33;
  // @ts-expect-error the answer has no such field
  void shop.GET('/health').then((r) => r.data?.uptime);
  void code;
  void envelope;
}
`;
