// GET /operator/stream (server-sent events): one EventSource for the page; screens subscribe to
// the event types they show (`locker`, `alert`, `order`) and refresh what changed.

const listeners = new Map();
const statusListeners = new Set();
let source = null;
let connected = false;
let everConnected = false;
let retry = null;

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
  clearTimeout(retry);
  if (source) return;
  source = new EventSource('/operator/stream');
  source.onopen = () => {
    // After a gap the screens read their views again: events of the gap are not replayed.
    const wasDown = everConnected && !connected;
    everConnected = true;
    setConnected(true);
    if (wasDown) for (const set of listeners.values()) for (const fn of set) fn(null);
  };
  // EventSource reconnects by itself; the indicator shows the gap.
  source.onerror = () => {
    setConnected(false);
    // An HTTP error answer (not a dropped connection) closes it for good: try again later.
    if (source?.readyState === EventSource.CLOSED) {
      source = null;
      retry = setTimeout(startLive, 5000);
    }
  };
  for (const type of ['locker', 'alert', 'order']) source.addEventListener(type, (e) => dispatch(type, e));
}

export function stopLive() {
  clearTimeout(retry);
  source?.close();
  source = null;
  everConnected = false;
  setConnected(false);
}

/** fn(payload) for every event of `type`, fn(null) after a reconnect; returns the unsubscribe function. */
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
