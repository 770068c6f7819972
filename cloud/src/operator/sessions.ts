/**
 * Operator console sessions. Signing in with an operator key gives a random 32-byte token (the
 * `operator_session` cookie) and a CSRF token; the database keeps the token's SHA-256 only, so
 * every cloud process accepts the cookie and a database leak gives no session. A session ends
 * after `operatorSessionIdleMinutes` without a request, on sign-out, when a fleet reload drops
 * its operator, or when its operator signs in beyond `operatorSessionsMax` (the oldest ends). A request with the cookie that changes something must carry the CSRF token
 * (http/plugins/authentication.ts).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ResultCode } from '../../../shared/src/enums.js';
import type { DomainError} from '../errors.js';
import { codeError } from '../errors.js';
import { authenticateOperator } from '../http/auth.js';
import {
  deleteExpiredSessions,
  deleteSession,
  findSession,
  insertSession,
  keepNewestSessions,
  type OperatorRole,
  type OperatorSession,
  operatorRole,
  touchSession,
} from '../repositories/operators.js';
import type { ServiceDeps } from '../services.js';

export const SESSION_COOKIE = 'operator_session';
export const CSRF_HEADER = 'x-csrf-token';
/** A session's expiry is written at most this often (not on every request). */
const TOUCH_EVERY_MS = 60_000;

export interface SignedIn {
  token: string;
  operator: string;
  role: OperatorRole;
  csrfToken: string;
  expiresAt: number;
}

function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function unauthorized(): DomainError {
  return codeError(ResultCode.AuthorizationError);
}

function idleMs(deps: Pick<ServiceDeps, 'config'>): number {
  return deps.config.operatorSessionIdleMinutes * 60_000;
}

export async function signIn(deps: ServiceDeps, key: string): Promise<SignedIn> {
  const operator = await authenticateOperator(deps.cdb, key);
  const role = await operatorRole(deps.cdb.db, operator);
  const now = deps.clock.now();
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const expiresAt = now + idleMs(deps);
  await deleteExpiredSessions(deps.cdb.db, now);
  await insertSession(deps.cdb.db, { tokenHash: hashToken(token), operator, csrfToken, createdAt: now, expiresAt });
  // One operator key signing in again and again fills no table: its oldest sessions end.
  await keepNewestSessions(deps.cdb.db, operator, deps.config.operatorSessionsMax);
  deps.logger.info({ operator, role }, 'operator signed in');
  return { token, operator, role, csrfToken, expiresAt };
}

/** The live session of a cookie's token (its idle expiry moved on); 401 when unknown or expired. */
export async function sessionOf(deps: Pick<ServiceDeps, 'cdb' | 'clock' | 'config'>, token: string | undefined): Promise<OperatorSession> {
  if (!token || token.length > 128) throw unauthorized();
  const now = deps.clock.now();
  const hash = hashToken(token);
  const session = await findSession(deps.cdb.db, hash, now);
  if (!session) throw unauthorized();
  const expiresAt = now + idleMs(deps);
  if (expiresAt - session.expiresAt >= TOUCH_EVERY_MS) {
    await touchSession(deps.cdb.db, hash, expiresAt);
    return { ...session, expiresAt };
  }
  return session;
}

export async function signOut(deps: Pick<ServiceDeps, 'cdb'>, token: string): Promise<void> {
  await deleteSession(deps.cdb.db, hashToken(token));
}

/** Whether a request's CSRF header carries the session's token (constant time). */
export function csrfMatches(session: OperatorSession, header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return false;
  const a = Buffer.from(value, 'utf8');
  const b = Buffer.from(session.csrfToken, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of one cookie of a Cookie header (no library: one name, a base64url value). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header || header.length > 8192) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The Set-Cookie value of a session (a browser-session cookie: the idle expiry is the server's);
 * `secure` when the request came over https. Without a token: the cookie cleared.
 */
export function sessionCookie(token: string | null, secure: boolean): string {
  const value = token === null ? `${SESSION_COOKIE}=; Max-Age=0` : `${SESSION_COOKIE}=${token}`;
  return `${value}; HttpOnly; SameSite=Strict; Path=/${secure ? '; Secure' : ''}`;
}
