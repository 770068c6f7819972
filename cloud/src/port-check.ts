/**
 * Fixed ports (the demo's, the sandbox lockers'), checked before anything starts, so that a taken
 * port is one clear error naming its setting instead of a half-started network.
 */
import { createServer } from 'node:net';

export interface PortClaim {
  port: number;
  /** What uses it, e.g. "the cloud's HTTP API". */
  what: string;
  /** The setting that moves it, e.g. "PORT" or "DEMO_SCREEN_PORT (+2)". */
  setting: string;
}

export class PortError extends Error {
  override readonly name = 'PortError';
}

function tryListen(port: number, host: string): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

/** Throws a PortError naming every claim whose port is taken or claimed twice (port 0 is never checked). */
export async function checkPorts(claims: readonly PortClaim[], host = '127.0.0.1'): Promise<void> {
  const problems: string[] = [];
  const byPort = new Map<number, PortClaim>();
  for (const c of claims) {
    if (c.port === 0) continue;
    const earlier = byPort.get(c.port);
    if (earlier) {
      problems.push(`port ${c.port} is given to both ${earlier.what} (${earlier.setting}) and ${c.what} (${c.setting})`);
      continue;
    }
    byPort.set(c.port, c);
    const err = await tryListen(c.port, host);
    if (err) {
      const why = err.code === 'EADDRINUSE' ? 'is in use' : err.code === 'EACCES' ? 'is not allowed' : `cannot be used (${err.code ?? err.message})`;
      problems.push(`port ${c.port} for ${c.what} ${why}: set ${c.setting.split(' ')[0]} to another port (0 = any free port)`);
    }
  }
  if (problems.length > 0) throw new PortError(problems.join('\n'));
}
