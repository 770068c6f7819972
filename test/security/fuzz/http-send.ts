/**
 * One raw HTTP/1.1 request over its own TCP connection, so that the path, the header bytes and
 * the body go out exactly as generated (fetch and node:http normalise URLs and refuse some
 * bytes). `Connection: close`: the answer ends when the server closes. A large body waits for
 * the server's `100 Continue` (`Expect: 100-continue`), so that a server refusing the request
 * before reading the body (401, 413) is heard instead of resetting a connection still being
 * written. A request that gets no answer within `timeoutMs` is reported as such, never awaited
 * forever.
 */
import { connect } from 'node:net';

/** Bodies from this size on wait for 100 Continue. */
const CONTINUE_FROM = 64 * 1024;
const CONTINUE = /^HTTP\/1\.1 100[^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n/;

export type Reply =
  | { kind: 'answer'; status: number; contentType: string; text: string }
  | { kind: 'timeout' }
  | { kind: 'no-answer'; error: string };

export interface RawRequest {
  method: string;
  /** Path with query, sent as is. */
  path: string;
  /** Values are sent as Latin-1 bytes. */
  headers: Record<string, string>;
  body?: Buffer;
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Parses a whole HTTP/1.1 answer; undefined when it is not one. */
export function parseAnswer(raw: Buffer): Extract<Reply, { kind: 'answer' }> | undefined {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const [statusLine, ...lines] = raw.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '');
  if (!status) return undefined;
  const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  let body = raw.subarray(headEnd + 4);
  if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) body = dechunk(body);
  else if (headers.has('content-length')) body = body.subarray(0, Number(headers.get('content-length')));
  return { kind: 'answer', status: Number(status[1]), contentType: headers.get('content-type') ?? '', text: body.toString('utf8') };
}

export function send(baseUrl: string, req: RawRequest, timeoutMs: number): Promise<Reply> {
  const base = new URL(baseUrl);
  const head = [
    `${req.method} ${req.path} HTTP/1.1`,
    `Host: ${base.host}`,
    'Connection: close',
    ...Object.entries(req.headers).map(([k, v]) => `${k}: ${v}`),
    ...(req.body ? [`Content-Length: ${req.body.length}`] : []),
    ...(req.body && req.body.length >= CONTINUE_FROM ? ['Expect: 100-continue'] : []),
    '',
    '',
  ].join('\r\n');
  return new Promise<Reply>((resolve) => {
    let received = Buffer.alloc(0);
    let writeError = '';
    const waitsForContinue = !!req.body && req.body.length >= CONTINUE_FROM;
    let bodyPending = waitsForContinue;
    const socket = connect({ host: base.hostname, port: Number(base.port) });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ kind: 'timeout' });
    }, timeoutMs);
    socket.on('connect', () => {
      socket.write(Buffer.from(head, 'latin1'));
      if (req.body && req.body.length > 0 && !waitsForContinue) socket.write(req.body);
    });
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
      if (!bodyPending) return;
      const interim = CONTINUE.exec(received.toString('latin1'));
      if (interim) {
        received = received.subarray(interim[0].length);
        bodyPending = false;
        socket.write(req.body!);
      } else if (received.includes('\r\n\r\n')) {
        bodyPending = false; // a final answer came instead: the body is not sent
      }
    });
    // A server may answer (413, 431) and close before the body is written; the answer still counts.
    socket.on('error', (err) => (writeError = err.message));
    socket.on('close', () => {
      clearTimeout(timer);
      const answer = parseAnswer(received);
      resolve(answer ?? { kind: 'no-answer', error: writeError || `closed after ${received.length} bytes` });
    });
  });
}
