/** A TCP port free right now on 127.0.0.1 (for a server that must keep its port across restarts). */
import { type AddressInfo, createServer, type Server } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The first of `count` consecutive TCP ports free right now on 127.0.0.1 (for a block of fixed ports). */
export async function freePortBlock(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = await freePort();
    if (first + count - 1 > 65_535) continue;
    const held: Server[] = [];
    let ok = true;
    for (let k = 1; k < count && ok; k++) {
      const server = createServer();
      ok = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false));
        server.listen(first + k, '127.0.0.1', () => resolve(true));
      });
      if (ok) held.push(server);
    }
    await Promise.all(held.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    if (ok) return first;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}
