/**
 * Whatever goes wrong, the answer is the spec's envelope `{message, resultCode}` with a fitting
 * status: refusals of Node's HTTP parser (431, 414, 400), of the body reader (413), of the router
 * (400, 404, 405, 414) and of the query string (400). Raw sockets where the request is not one
 * fetch could send, fetch (undici) where it is.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, orderBody } from '../cloud/helpers/fleet-fixtures.js';
import { type TestCloud, startTestCloud } from '../cloud/helpers/test-cloud.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const ORDERS = '/api/v4/auth/delivery/order/update';
const AVAILABLE = '/api/v4/auth/postamat/available';

describe('every answer is the envelope', () => {
  let tc: TestCloud;
  let port: number;
  beforeAll(async () => {
    tc = await startTestCloud('sqlite');
    port = Number(new URL(tc.cloud.url).port);
  });
  afterAll(async () => tc?.stop());

  /** Writes the bytes as they are and reads the one answer (the server closes after it). */
  function raw(request: string | Buffer, opts: { readAfterWrite?: boolean } = {}): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        if (opts.readAfterWrite) socket.pause();
        socket.write(request, (err) => {
          if (err) reject(new Error(`the request could not be written: ${err.message}`));
          else socket.resume();
        });
      });
      const chunks: Buffer[] = [];
      socket.on('data', (d: Buffer) => chunks.push(d));
      // The server may close while a long request is still being written; the answer came before.
      socket.on('error', () => socket.destroy());
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const end = text.indexOf('\r\n\r\n');
        if (end < 0) {
          reject(new Error(`no answer: ${JSON.stringify(text.slice(0, 200))}`));
          return;
        }
        const [statusLine, ...headerLines] = text.slice(0, end).split('\r\n');
        const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        const length = Number(headers['content-length']);
        const body = Buffer.from(text.slice(end + 4)).subarray(0, length).toString('utf8');
        resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(body) as unknown });
      });
    });
  }

  async function viaFetch(path: string, init: RequestInit = {}): Promise<RawAnswer> {
    const res = await fetch(`${tc.cloud.url}${path}`, init);
    return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.json() };
  }

  function expectEnvelope(answer: RawAnswer, status: number, resultCode = 3): void {
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(answer.body as object).sort()).toEqual(['message', 'resultCode']);
    expect((answer.body as { resultCode: number }).resultCode).toBe(resultCode);
    expect((answer.body as { message: string }).message).toMatch(/^Неверный формат запроса/);
  }

  const get = (target: string, headers = '') => `GET ${target} HTTP/1.1\r\nHost: localhost\r\n${headers}Connection: close\r\n\r\n`;
  const key = `X-Service-Api-Key: ${KEYS.shopA}\r\n`;

  it('a URL over Node header limit: 414', async () => {
    expectEnvelope(await raw(get(`${AVAILABLE}?scanner=${'a'.repeat(20_000)}`, key)), 414);
  });

  it('a request line of megabytes still being written when refused: the client hears its 414', async () => {
    // The refusal comes after 16 KiB while the client is still writing. The client reads nothing
    // until its write has ended (as a busy client may): a server that destroys the connection at
    // once resets it, the write fails and the answer already sent is lost with the socket.
    const huge = get(`${AVAILABLE}?scanner=${'%D0%AF'.repeat(2_000_000)}`, key);
    const answers = await Promise.all(Array.from({ length: 5 }, () => raw(huge, { readAfterWrite: true })));
    for (const answer of answers) expectEnvelope(answer, 414);
  });

  it('a URL over 8 KiB within the header limit: 414', async () => {
    expectEnvelope(await viaFetch(`${AVAILABLE}?scanner=${'a'.repeat(10_000)}`, { headers: { 'X-Service-Api-Key': KEYS.shopA } }), 414);
  });

  it('headers over the limit: 431', async () => {
    expectEnvelope(await raw(get('/health', `X-Padding: ${'a'.repeat(20_000)}\r\n`)), 431);
    expectEnvelope(await raw(get('/health', Array.from({ length: 400 }, (_, i) => `X-H${i}: ${'b'.repeat(50)}\r\n`).join(''))), 431);
  });

  it('a body over the limit: 413, with Content-Length or chunked, through fetch too', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 'a');
    const head = `PUT ${ORDERS} HTTP/1.1\r\nHost: localhost\r\n${key}Content-Type: application/json\r\nConnection: close\r\n`;
    expectEnvelope(await raw(Buffer.concat([Buffer.from(`${head}Content-Length: ${big.length}\r\n\r\n`), big])), 413);
    const chunked = Buffer.concat([Buffer.from(`${head}Transfer-Encoding: chunked\r\n\r\n${big.length.toString(16)}\r\n`), big, Buffer.from('\r\n0\r\n\r\n')]);
    expectEnvelope(await raw(chunked), 413);
    const body = JSON.stringify({ externalId: 'x'.repeat(3 * 1024 * 1024) });
    expectEnvelope(await viaFetch(ORDERS, { method: 'PUT', headers: { 'X-Service-Api-Key': KEYS.shopA, 'Content-Type': 'application/json' }, body }), 413);
  });

  it('a query string that does not decode: 400 code 3, not ignored', async () => {
    for (const query of ['%', 'scanner=%zz', 'scanner=true&%E0%A4%A', 'schedule=%C0%AF', 'scanner%=true']) {
      expectEnvelope(await raw(get(`${AVAILABLE}?${query}`, key)), 400);
    }
    // The same operation with a well-formed query still answers.
    expect((await viaFetch(`${AVAILABLE}?scanner=true`, { headers: { 'X-Service-Api-Key': KEYS.shopA } })).status).toBe(200);
  });

  it('malformed JSON and a wrong Content-Type: 400 code 3', async () => {
    const put = (body: string, contentType: string) =>
      viaFetch('/api/v4/auth/delivery/smartorder/create', { method: 'PUT', headers: { 'X-Service-Api-Key': KEYS.shopA, 'Content-Type': contentType }, body });
    expectEnvelope(await put('{"externalId": ', 'application/json'), 400);
    expectEnvelope(await put('', 'application/json'), 400);
    expectEnvelope(await put('{"__proto__": {"x": 1}}', 'application/json'), 400);
    expectEnvelope(await put(JSON.stringify(orderBody('E-1')), 'text/plain'), 400);
    expectEnvelope(await put('externalId=E-1', 'application/x-www-form-urlencoded'), 400);
    expectEnvelope(await put(JSON.stringify(orderBody('E-1')), 'application/xml'), 400);
  });

  it('an unknown path: 404; a known path with another method: 405 naming the allowed ones', async () => {
    expectEnvelope(await viaFetch('/api/v4/auth/nothing'), 404);
    expectEnvelope(await viaFetch('/'), 404);
    const wrongMethod = await viaFetch(ORDERS, { method: 'DELETE', headers: { 'X-Service-Api-Key': KEYS.shopA } });
    expectEnvelope(wrongMethod, 405);
    expect(wrongMethod.headers.allow).toBe('PUT');
    const withParams = await viaFetch('/operator/postamats/1/cells/2/flags', { method: 'GET' });
    expectEnvelope(withParams, 405);
    expect(withParams.headers.allow).toBe('PUT');
  });

  it('a path that is not valid percent-encoding: 400; a path parameter too long: 414', async () => {
    expectEnvelope(await raw(get('/operator/postamats/%zz/cells/1/flags')), 400);
    const put = (target: string) => `PUT ${target} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`;
    expectEnvelope(await raw(put(`/operator/postamats/${'1'.repeat(500)}/cells/1/flags`)), 414);
    expectEnvelope(await raw(put('/operator/postamats/%zz/cells/1/flags')), 400);
  });

  it('requests Node cannot parse: 400 code 3', async () => {
    const malformed = [
      'GARBAGE\r\n\r\n',
      'G@T /health HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /health HTTP/9.9\r\nHost: x\r\n\r\n',
      'GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      'GET /he alth HTTP/1.1\r\nHost: x\r\n\r\n',
      `PUT ${ORDERS} HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n12345`,
      `PUT ${ORDERS} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n`,
    ];
    for (const request of malformed) expectEnvelope(await raw(request), 400);
    // The server still answers afterwards.
    expect((await viaFetch('/health')).body).toEqual({ status: 'ok', database: 'sqlite' });
  });
});
