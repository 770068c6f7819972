// The /operator JSON API as the console uses it: the session cookie travels by itself (same
// origin, HttpOnly); the CSRF token is kept in memory only and sent with every action.

let csrfToken = null;
const unauthorizedListeners = new Set();

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export const setCsrfToken = (token) => {
  csrfToken = token;
};

/** Called when an answer says the session is gone (401), so the page can show the sign-in again. */
export function onUnauthorized(fn) {
  unauthorizedListeners.add(fn);
  return () => unauthorizedListeners.delete(fn);
}

/** `path` is relative to /operator; `query` drops empty values. */
export async function api(method, path, { body, query } = {}) {
  const qs = query ? new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== '')).toString() : '';
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(`/operator${path}${qs ? `?${qs}` : ''}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { message: text };
  }
  if (!res.ok) {
    if (res.status === 401 && path !== '/session') for (const fn of unauthorizedListeners) fn();
    throw new ApiError(res.status, data);
  }
  return data;
}

export const get = (path, query) => api('GET', path, { query });
export const post = (path, body = {}) => api('POST', path, { body });
export const put = (path, body = {}) => api('PUT', path, { body });
