/** The simulator on its own: raw bytes over TCP, its control API and CLI, door timing. */
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSimulator, type SimulatorHandle, type SimulatorState } from '../../sim/src/index.js';
import { runCli } from '../../sim/src/cli.js';
import { FrameDecoder } from '@parcel-locker/hw-protocol';
import { parseCu48Frame } from '@parcel-locker/hw-protocol/kerong-cu48';
import { parseTcpUrl } from '../../agent/src/hw/transport/tcp.js';

const h = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

/** Sends raw bytes to a simulated bus and collects `expected` bytes of answer. */
async function exchange(url: string, bytes: Buffer, expected: number): Promise<Buffer> {
  const target = parseTcpUrl(url)!;
  const socket = net.createConnection(target);
  await new Promise((res) => socket.once('connect', res));
  const chunks: Buffer[] = [];
  let got = 0;
  const done = new Promise<void>((resolve) => {
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      got += d.length;
      if (got >= expected) resolve();
    });
  });
  socket.write(bytes);
  await done;
  socket.destroy();
  return Buffer.concat(chunks);
}

describe('simulator wire behaviour', () => {
  let sim: SimulatorHandle | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await sim?.stop();
    sim = undefined;
  });

  it('answers the CU48 status request of board 0 with the vector reply', async () => {
    sim = await startSimulator({ buses: [{ boards: 1 }], scanner: false });
    for (const lock of [4, 5, 6, 7, 8]) sim.openDoor({ board: 0, lock });
    for (let lock = 9; lock <= 46; lock++) sim.openDoor({ board: 0, lock });
    // Locks 1, 2, 3, 47 and 48 still locked: the reply of docs/hardware.md.
    expect(await exchange(sim.buses[0]!.url, h('02 00 00 50 03 55'), 12)).toEqual(h('02 00 00 65 07 00 00 00 00 C0 03 31'));
  });

  it('answers a CU48 broadcast status with one reply per board, and a broadcast unlock opens everything', async () => {
    sim = await startSimulator({ buses: [{ boards: 3 }], scanner: false });
    const replies = new FrameDecoder(parseCu48Frame).push(await exchange(sim.buses[0]!.url, h('02 0A 00 50 03 5F'), 36));
    expect(replies.map((e) => e.type === 'frame' && e.frame.type === 'status-reply' && e.frame.address)).toEqual([0, 1, 2]);
    await exchange(sim.buses[0]!.url, Buffer.concat([h('02 0A 30 51 03 90'), h('02 01 00 50 03 56')]), 12);
    expect(sim.state().buses[0]!.boards.every((b) => b.locks.every((l) => l.open && l.pulses === 1))).toBe(true);
  });

  it('answers CU16 unlock with a status that already shows the lock released, and reports items', async () => {
    sim = await startSimulator({ buses: [{ family: 'kerong-cu16', boards: 2 }], scanner: false });
    sim.openDoor({ board: 1, lock: 1 });
    sim.putItem({ board: 1, lock: 1 });
    const reply = await exchange(sim.buses[0]!.url, h('02 1F 31 03 55'), 9);
    // hooks: all locked except 1 and 16 -> FE 7F; items: lock 1 -> 01 00.
    expect(reply).toEqual(Buffer.from([0x02, 0x1f, 0x35, 0xfe, 0x7f, 0x01, 0x00, 0x03, (0x02 + 0x1f + 0x35 + 0xfe + 0x7f + 0x01 + 0x03) & 0xff]));
  });

  it('ignores requests with a wrong checksum, as a board does', async () => {
    sim = await startSimulator({ buses: [{ boards: 1 }], scanner: false });
    const reply = await exchange(sim.buses[0]!.url, Buffer.concat([h('02 00 00 51 03 57'), h('02 00 00 50 03 55')]), 12);
    expect(reply.subarray(0, 4)).toEqual(h('02 00 00 65'));
    expect(sim.pulses({ board: 0, lock: 1 })).toBe(0);
  });

  it('closes doors by itself after autoCloseMs, unless the door is left open', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    sim = await startSimulator({ buses: [{ boards: 1 }], scanner: false, autoCloseMs: 5000 });
    sim.setFault({ kind: 'door-left-open', board: 0, lock: 2 });
    sim.openDoor({ board: 0, lock: 1 });
    sim.openDoor({ board: 0, lock: 2 });
    vi.advanceTimersByTime(4999);
    expect(sim.isOpen({ board: 0, lock: 1 })).toBe(true);
    vi.advanceTimersByTime(1);
    expect(sim.isOpen({ board: 0, lock: 1 })).toBe(false);
    expect(sim.isOpen({ board: 0, lock: 2 })).toBe(true);
  });

  it('refuses an item through a closed door and unknown boards or locks', async () => {
    sim = await startSimulator({ buses: [{ family: 'kerong-cu16', boards: 1 }], scanner: false });
    expect(() => sim!.putItem({ board: 0, lock: 1 })).toThrow(/closed/);
    expect(() => sim!.openDoor({ board: 3, lock: 1 })).toThrow(RangeError);
    expect(() => sim!.openDoor({ board: 0, lock: 17 })).toThrow(RangeError);
    await expect(startSimulator({ buses: [{ boards: 11 }] })).rejects.toThrow(/0-9/);
  });
});

describe('simulator control API and CLI', () => {
  let sim: SimulatorHandle | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await sim?.stop();
    sim = undefined;
  });

  it('drives doors, items, scans and faults over HTTP', async () => {
    sim = await startSimulator({ buses: [{ name: 'main', family: 'kerong-cu16', boards: 1 }], http: {} });
    const api = sim.httpUrl!;
    const post = (path: string, body?: unknown) =>
      fetch(`${api}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
    expect((await post('/doors/open', { board: 0, lock: 3 })).status).toBe(200);
    expect((await post('/items/put', { board: 0, lock: 3 })).status).toBe(200);
    expect(await (await post('/faults', { kind: 'door-left-open', board: 0, lock: 3 })).json()).toEqual({ ok: true });
    expect(await (await post('/doors/close', { board: 0, lock: 3 })).json()).toEqual({ closed: false });
    expect((await post('/faults', { kind: 'no-reply', board: 0, count: 2 })).status).toBe(200);
    expect((await post('/scan', { barcode: 'PKG-1' })).status).toBe(200);

    const state = (await (await fetch(`${api}/state`)).json()) as SimulatorState;
    const board = state.buses[0]!.boards[0]!;
    expect(board.locks[2]).toMatchObject({ open: true, item: true, leftOpen: true });
    expect(board.noReply).toBe(2);
    expect(state.scanner?.scans).toBe(1);

    const bad = await post('/faults', { kind: 'jammed', board: 0 });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/lock/);
    expect((await post('/doors/open', { board: 9, lock: 1 })).status).toBe(400);
    expect((await fetch(`${api}/nothing`)).status).toBe(404);

    expect((await fetch(`${api}/faults`, { method: 'DELETE' })).status).toBe(200);
    expect(sim.state().buses[0]!.boards[0]!.noReply).toBe(0);
    expect(await (await post('/doors/close', { board: 0, lock: 3 })).json()).toEqual({ closed: true });
  });

  it('the CLI talks to a running simulator', async () => {
    sim = await startSimulator({ buses: [{ name: 'main', boards: 2 }], http: {} });
    const out: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((s: string) => void out.push(s));
    vi.spyOn(console, 'error').mockImplementation((s: string) => void out.push(s));
    const url = ['--url', sim.httpUrl!];
    expect(await runCli(['open', '1', '7', ...url])).toBe(0);
    expect(sim.isOpen({ board: 1, lock: 7 })).toBe(true);
    expect(await runCli(['fault', 'jammed', '--board', '0', '--lock', '2', ...url])).toBe(0);
    expect(await runCli(['fault', 'noise', '--bytes', '6', ...url])).toBe(0);
    expect(await runCli(['state', ...url])).toBe(0);
    expect(out.at(-1)).toMatch(/board 1: open 7;/);
    expect(out.at(-1)).toMatch(/board 0: open -; items -; jammed 2;/);
    expect(out.at(-1)).toMatch(/noise 6 bytes/);
    expect(await runCli(['close', '1', '7', ...url])).toBe(0);
    expect(sim.isOpen({ board: 1, lock: 7 })).toBe(false);
    expect(await runCli(['clear-all', ...url])).toBe(0);
    expect(sim.state().buses[0]!.noiseBytes).toBe(0);
    expect(await runCli(['fault', 'melted', ...url])).toBe(2);
    expect(await runCli(['open', '5', '1', ...url])).toBe(1);
  });
});
