// GET /operator/stream (server-sent events): one EventSource for the page; screens subscribe to
// the event types they show (`locker`, `alert`, `order`) and refresh what changed.

const listeners = new Map();
const statusListeners = new Set();
let source = null;
let connected = false;

function setConnected(value) {
  connected = value;
  for (const fn of statusListeners) fn(value);
}

function dispatch(type, event) {
  let data = null;
  try {
    data = JSON.parse(event.data);
  } catch {
    return;
  }
  for (const fn of listeners.get(type) ?? []) fn(data);
}

export function startLive() {
  if (source) return;
  source = new EventSource('/operator/stream');
  source.onopen = () => setConnected(true);
  // EventSource reconnects by itself; the indicator shows the gap.
  source.onerror = () => setConnected(false);
  for (const type of ['locker', 'alert', 'order']) source.addEventListener(type, (e) => dispatch(type, e));
}

export function stopLive() {
  source?.close();
  source = null;
  setConnected(false);
}

/** fn(payload) for every event of `type`; returns the unsubscribe function. */
export function subscribe(type, fn) {
  if (!listeners.has(type)) listeners.set(type, new Set());
  listeners.get(type).add(fn);
  return () => listeners.get(type).delete(fn);
}

export function onLiveStatus(fn) {
  statusListeners.add(fn);
  fn(connected);
  return () => statusListeners.delete(fn);
}
