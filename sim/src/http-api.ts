/**
 * The simulator's control API, for people (curl), the CLI and the demo:
 *   GET  /state                      doors, items, pulses, faults
 *   POST /doors/open   {bus?, board, lock}   the door swings open (service key)
 *   POST /doors/close  {bus?, board, lock}   a person pushes it shut -> {closed}
 *   POST /items/put | /items/take {bus?, board, lock}   through an open door
 *   POST /scan         {barcode, aimPrefix?, suffix?}
 *   POST /scanner/garbage
 *   POST /faults       {kind, ...}   switch a fault on;  POST /faults/clear {kind, ...} off
 *   DELETE /faults                   every fault off
 */
import http from 'node:http';
import { z } from 'zod';
import { simFaultSchema } from './faults.js';
import { listen } from './listen.js';
import type { SimulatorHandle } from './simulator-handle.js';

export interface ControlApi {
  url: string;
  close(): Promise<void>;
}

const cellSchema = z.object({ bus: z.string().optional(), board: z.number().int().min(0), lock: z.number().int().min(1) });
const scanSchema = z.object({
  barcode: z.string().min(1).max(4096),
  aimPrefix: z.string().max(3).optional(),
  suffix: z.enum(['crlf', 'cr', 'lf', 'none']).optional(),
});

type Route = (body: unknown, sim: SimulatorHandle) => unknown;

const routes: Record<string, Route> = {
  'GET /state': (_b, sim) => sim.state(),
  'POST /doors/open': (b, sim) => {
    sim.openDoor(cellSchema.parse(b));
    return { open: true };
  },
  'POST /doors/close': (b, sim) => ({ closed: sim.closeDoor(cellSchema.parse(b)) }),
  'POST /items/put': (b, sim) => {
    sim.putItem(cellSchema.parse(b));
    return { item: true };
  },
  'POST /items/take': (b, sim) => {
    sim.takeItem(cellSchema.parse(b));
    return { item: false };
  },
  'POST /scan': async (b, sim) => {
    const { barcode, ...opts } = scanSchema.parse(b);
    await sim.scan(barcode, opts);
    return { sent: true };
  },
  'POST /scanner/garbage': (_b, sim) => {
    sim.sendScannerGarbage();
    return { sent: true };
  },
  'POST /faults': (b, sim) => {
    sim.setFault(simFaultSchema.parse(b));
    return { ok: true };
  },
  'POST /faults/clear': (b, sim) => {
    sim.clearFault(simFaultSchema.parse(b));
    return { ok: true };
  },
  'DELETE /faults': (_b, sim) => {
    sim.clearFaults();
    return { ok: true };
  },
};

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const c = chunk as Buffer;
    size += c.length;
    if (size > 64 * 1024) throw new RangeError('body too large');
    chunks.push(c);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  return text ? (JSON.parse(text) as unknown) : {};
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startControlApi(sim: SimulatorHandle, opts: { host: string; port: number }): Promise<ControlApi> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const route = routes[`${req.method ?? 'GET'} ${path}`];
    if (!route) return send(res, 404, { error: `no route ${req.method ?? ''} ${path}` });
    readJson(req)
      .then((body) => route(body, sim))
      .then((answer) => send(res, 200, answer))
      .catch((err: unknown) => {
        const message = err instanceof z.ZodError ? z.prettifyError(err) : err instanceof Error ? err.message : String(err);
        send(res, 400, { error: message });
      });
  });
  const port = await listen(server, opts.port, opts.host);
  return {
    url: `http://${opts.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
