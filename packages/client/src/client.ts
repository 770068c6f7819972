/**
 * One typed client per audience of the cloud's HTTP API, each knowing only its own paths and
 * sending its own key header: a marketplace's code cannot call an operator route by mistake, and
 * the compiler checks every body, parameter and answer against the published document.
 *
 * Built on openapi-fetch (typed `GET`/`PUT`/`POST`/`DELETE` over `fetch`); every request carries an
 * `X-Request-Id` (a fresh UUID unless the caller gave one), which the cloud logs, returns and passes
 * on to the notifications it causes, so a support ticket can name one request.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './schema.js';

/** The paths of `paths` that start with `prefix`. */
type PathsUnder<Prefix extends string> = { [P in keyof paths as P extends `${Prefix}${string}` ? P : never]: paths[P] };

/** Liveness and readiness: open to every audience. */
export type HealthPaths = PathsUnder<'/health'>;
/** A marketplace: orders, lockers, capacity (`X-Service-Api-Key`). */
export type MarketplacePaths = PathsUnder<'/api/v4/auth/'> & HealthPaths;
/** The sandbox marketplace's operations that play the locker's side (`X-Service-Api-Key` of a sandbox marketplace). */
export type SandboxPaths = PathsUnder<'/api/v4/sandbox/'> & HealthPaths;
/** A courier company: route sheets (`Partner-Api-Key`). */
export type CourierPaths = PathsUnder<'/api/v1/'> & HealthPaths;
/** An operator: the console's API (`X-Operator-Api-Key`). */
export type OperatorPaths = PathsUnder<'/operator/'> & HealthPaths;

export interface ClientOptions {
  /** The cloud's base URL, e.g. `https://lockers.example` (no trailing slash needed). */
  baseUrl: string;
  /** The key of this audience. */
  apiKey: string;
  /** `en` for English messages; the default is the contract's (Russian). */
  language?: 'ru' | 'en';
  /** Another fetch (tests, proxies). */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

/** Adds `X-Request-Id` to a request that has none. */
export const requestIdMiddleware: Middleware = {
  onRequest({ request }) {
    if (!request.headers.has('x-request-id')) request.headers.set('x-request-id', crypto.randomUUID());
    return request;
  },
};

function build<Paths extends object>(keyHeader: string, options: ClientOptions): Client<Paths> {
  const client = createClient<Paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { ...options.headers, [keyHeader]: options.apiKey, ...(options.language ? { 'Accept-Language': options.language } : {}) },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  client.use(requestIdMiddleware);
  return client;
}

export const marketplaceClient = (options: ClientOptions): Client<MarketplacePaths> => build<MarketplacePaths>('X-Service-Api-Key', options);
export const sandboxClient = (options: ClientOptions): Client<SandboxPaths> => build<SandboxPaths>('X-Service-Api-Key', options);
export const courierClient = (options: ClientOptions): Client<CourierPaths> => build<CourierPaths>('Partner-Api-Key', options);
export const operatorClient = (options: ClientOptions): Client<OperatorPaths> => build<OperatorPaths>('X-Operator-Api-Key', options);
