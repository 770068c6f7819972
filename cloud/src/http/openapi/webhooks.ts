/**
 * The three outbound notifications (POST {receiver_url}/<kind>, docs/notifications.md) as
 * OpenAPI 3.1 webhooks: their bodies, the headers the receiver gets (notify/receiver-client.ts,
 * notify/signature.ts) and what the receiver must answer.
 */
import { z } from 'zod';
import { expirationDateChangesBodySchema, orderStatusBodySchema, userAccessCodeBodySchema } from '../../contract/notifications.js';
import { NOTIFICATION_ID_HEADER, REQUEST_ID_HEADER } from '../../notify/receiver-client.js';
import { SIGNATURE_HEADER } from '../../notify/signature.js';
import { VALID_REQUEST_ID } from '../request-id.js';
import type { ExampleObject, JsonObject, Operation, Parameter } from './document-types.js';

export const RECEIVER_AUTH_SCHEME = 'receiverBasicAuth';

const DELIVERY =
  'Sent once the change is committed; per order in the order the changes happened (a later notification of the order waits ' +
  'while an earlier one is undelivered; other orders do not wait). Only HTTP 200 counts as delivered: any other status, a ' +
  'redirect, no answer within NOTIFY_TIMEOUT_SECONDS (10) or a refused connection is retried after NOTIFY_RETRY_SECONDS (300) ' +
  'with the same X-Notification-Id, forever; undelivered after NOTIFY_FAILING_AFTER_SECONDS (86400) it is marked failing for ' +
  'operators and still retried every NOTIFY_FAILING_RETRY_SECONDS (300). Delivery is at least once: deduplicate by ' +
  'X-Notification-Id. With `receiver.bodyForm: "array"` in the fleet file the body is a one-element array.';

const headers: Parameter[] = [
  {
    in: 'header',
    name: NOTIFICATION_ID_HEADER,
    required: true,
    description: 'UUID of the notification, the same on every attempt: deduplicate by it',
    schema: { type: 'string', format: 'uuid' },
    examples: { id: { summary: 'a notification id', value: '0f8e6a52-3c1d-4b8e-9a57-2f4c6d8e1b90' } },
  },
  {
    in: 'header',
    name: REQUEST_ID_HEADER,
    required: false,
    description:
      'The X-Request-Id of the API call that caused the notification (the extension that moved the deadline, for example), the same on every attempt; ' +
      'absent when no call did (a courier loading the locker, a customer taking the parcels, storage running out).',
    schema: { type: 'string', pattern: VALID_REQUEST_ID.source },
    examples: { caused: { summary: 'the id of the causing call', value: '5b2f0c1e-7d3a-4f8e-b6a1-2c9d4e8f0a13' } },
  },
  {
    in: 'header',
    name: SIGNATURE_HEADER,
    required: false,
    description:
      'Only when the marketplace has receiver.hmacSecret: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>. ' +
      'Recompute over the raw body as received, compare in constant time, reject t more than 300 s from your clock. ' +
      'Each attempt is signed anew.',
    schema: { type: 'string', pattern: '^t=\\d+,v1=[0-9a-f]{64}$' },
    examples: { signed: { summary: 'a signature', value: 't=1900000000,v1=5d1c3f0e8b6a4c2e9f7d1b3a5c7e9f0d2b4a6c8e0f1d3b5a7c9e1f3d5b7a9c0e' } },
  },
];

const responses = {
  '200': { description: 'Stored; the notification is delivered' },
  default: { description: 'Not delivered: sent again later with the same X-Notification-Id' },
};

/** The component name of a body schema (its registered id). */
function componentOf(schema: z.ZodType): string {
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error('a notification body schema has no id');
  return id;
}

function webhook(kind: string, summary: string, bodySchema: z.ZodType, examples: Record<string, ExampleObject>): Record<string, Operation> {
  const schema = componentOf(bodySchema);
  const body: JsonObject = {
    anyOf: [
      { $ref: `#/components/schemas/${schema}` },
      { type: 'array', items: { $ref: `#/components/schemas/${schema}` }, minItems: 1, maxItems: 1 },
    ],
  };
  return {
    post: {
      operationId: `${kind.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}Notification`,
      tags: ['notifications'],
      summary: `POST {receiver_url}/${kind}: ${summary}`,
      description: DELIVERY,
      security: [{ [RECEIVER_AUTH_SCHEME]: [] }],
      parameters: headers,
      requestBody: { required: true, content: { 'application/json': { schema: body, examples } } },
      responses,
    },
  };
}

export function notificationWebhooks(): Record<string, Record<string, Operation>> {
  return {
    'order-status': webhook('order-status', 'a parcel was loaded (3), taken by the customer (2), is awaiting return (7) or was collected (4)', orderStatusBodySchema, {
      loaded: {
        summary: 'Courier loaded (3): the only event with postamat_id and cell_id',
        value: { postamat_id: '101', cell_id: 3, id: 'ORD-1001', barcode: 'PCL-1001-1', event_id: '3', status: 'Courier loaded', dt: '2030-03-05T12:00:00+03:00' },
      },
      received: {
        summary: 'Client received (2)',
        value: { id: 'ORD-1001', barcode: 'PCL-1001-1', event_id: '2', status: 'Client received', dt: '2030-03-06T13:00:00+03:00' },
      },
      awaitingReturn: {
        summary: 'Awaiting return (7)',
        value: { id: 'ORD-1001', barcode: 'PCL-1001-1', event_id: '7', status: 'Awaiting return', dt: '2030-03-08T12:02:00+03:00' },
      },
      pickedUp: {
        summary: 'Courier picked up (4)',
        value: { id: 'ORD-1001', barcode: 'PCL-1001-1', event_id: '4', status: 'Courier picked up', dt: '2030-03-08T13:02:00+03:00' },
      },
      asArray: {
        summary: 'The same with bodyForm "array"',
        value: [{ id: 'ORD-1001', barcode: 'PCL-1001-1', event_id: '2', status: 'Client received', dt: '2030-03-06T13:00:00+03:00' }],
      },
    }),
    'user-access-code': webhook('user-access-code', "the customer's pick-up code, once the order's last parcel is in the locker", userAccessCodeBodySchema, {
      code: { summary: 'The pick-up code', value: { id: 'ORD-1001', postamat_id: '101', access_code: '483920' } },
    }),
    'expiration-date-changes': webhook('expiration-date-changes', 'the end of storage: when the order is complete in the locker and after each extension', expirationDateChangesBodySchema, {
      deadline: { summary: 'End of storage', value: { id: 'ORD-1001', event_dt: '2030-03-05T12:01:00+03:00', expire_dt: '2030-03-09T12:01:00+03:00' } },
    }),
  };
}

/** The receiver's HTTP Basic authentication (receiver.login, receiver.password in the fleet file). */
export const receiverAuthScheme = { type: 'http', scheme: 'basic', description: "the marketplace receiver's login and password from the fleet file" };
