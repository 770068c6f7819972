/**
 * Domain enums shared by the cloud and the locker agent. Numbers that appear on the wire of the
 * marketplace API (order states, result codes) keep the spec's values.
 */

/** Order state: `state` in order detail and `event_id` in order-status notifications. */
export const OrderState = {
  New: 0,
  ClientReceived: 2,
  CourierLoaded: 3,
  CourierPickedUp: 4,
  Cancelled: 5,
  ReturnInitiated: 6,
  AwaitingReturn: 7,
} as const;
export type OrderState = (typeof OrderState)[keyof typeof OrderState];
export const ORDER_STATES: readonly OrderState[] = Object.values(OrderState);

/** Status texts sent in order-status notifications (`status`). */
export const ORDER_STATE_TEXT: Record<OrderState, string> = {
  0: 'New',
  2: 'Client received',
  3: 'Courier loaded',
  4: 'Courier picked up',
  5: 'Cancelled',
  6: 'Return initiated',
  7: 'Awaiting return',
};

/** Terminal states: nothing of the order stays in a locker. */
export const TERMINAL_ORDER_STATES: ReadonlySet<OrderState> = new Set([
  OrderState.ClientReceived,
  OrderState.CourierPickedUp,
  OrderState.Cancelled,
]);

/**
 * Parcel (position) state, internal to the platform. The order state is derived from its parcels
 * plus the storage clock (see docs/architecture.md, "Orders").
 */
export const ParcelState = {
  /** Not in the locker yet; may hold a reserved cell. */
  Pending: 'pending',
  /** In its cell, waiting for the customer. */
  Loaded: 'loaded',
  /** Position cancelled before it was loaded. */
  Cancelled: 'cancelled',
  /** In its cell, but to be collected by a courier (position cancelled after loading, or storage expired). */
  AwaitingReturn: 'awaiting_return',
  /** Taken by the customer. */
  Received: 'received',
  /** Collected by a courier (return). */
  Returned: 'returned',
} as const;
export type ParcelState = (typeof ParcelState)[keyof typeof ParcelState];
export const PARCEL_STATES = Object.values(ParcelState) as [ParcelState, ...ParcelState[]];

/** Flags an operator or the locker sets on a cell; any of them takes the cell out of allocation. */
export const CellFlag = {
  Faulty: 'faulty',
  Dirty: 'dirty',
  NeedsInventory: 'needs_inventory',
  Blocked: 'blocked',
} as const;
export type CellFlag = (typeof CellFlag)[keyof typeof CellFlag];
export const CELL_FLAGS = Object.values(CellFlag) as [CellFlag, ...CellFlag[]];

/** Lock-board families the agent has drivers for (docs/hardware.md): defined with their protocols. */
export { BOARD_FAMILIES, BoardFamily } from '@parcel-locker/hw-protocol';

/** `resultCode` values of the spec's error envelope. */
export const ResultCode = {
  AuthorizationError: 1,
  InternalError: 2,
  InvalidRequest: 3,
  /** Not in the spec: rate limit or guess lockout (HTTP 429, Retry-After). */
  TooManyRequests: 4,
  /** Not in the spec: an operator may not do this (viewer role, or a session request without its CSRF token); HTTP 403. */
  Forbidden: 5,
  MarketplaceNotActive: 10,
  OrganizationNotActive: 11,
  NoCellsForAllParcels: 32,
  OrderNotFound: 200,
  LogistNotFound: 203,
  CourierRouteNotFound: 210,
  PostOperationNotFound: 205,
  PostOperationWrongState: 206,
  PackagingNotFound: 207,
  PackagingCanceled: 208,
  PackagingLoadedOrIssued: 211,
  OperationNotFound: 250,
  OperationBadState: 252,
  PermissionProfileNotSet: 500,
  CourierAlreadyExists: 602,
  CourierExtIdEmpty: 604,
} as const;
export type ResultCode = (typeof ResultCode)[keyof typeof ResultCode];

/**
 * Kinds of code typed on the locker keypad; they are entered behind separate choices. A service
 * code is a technician's, issued for one locker by an operator for a short while.
 */
export const CodeKind = {
  Courier: 'courier',
  Customer: 'customer',
  Service: 'service',
} as const;
export type CodeKind = (typeof CodeKind)[keyof typeof CodeKind];
