/**
 * A pseudo-terminal bridged to a TCP endpoint by socat, so the agent opens a device path through
 * the real serialport stack. socat ends when the agent closes its side, so it is started again
 * for as long as the link runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';

export class PtyLink {
  private child: ChildProcess | undefined;
  private running = false;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly path: string,
    private readonly tcpPort: number,
    private readonly host = '127.0.0.1',
  ) {}

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.spawn();
    await this.waitForPath(5000);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    }
    rmSync(this.path, { force: true });
  }

  private spawn(): void {
    const child = spawn('socat', [`pty,raw,echo=0,link=${this.path}`, `tcp:${this.host}:${this.tcpPort}`], { stdio: 'ignore' });
    this.child = child;
    child.on('error', () => undefined);
    child.on('exit', () => {
      if (this.child !== child || !this.running) return;
      this.child = undefined;
      this.restartTimer = setTimeout(() => {
        this.restartTimer = undefined;
        if (this.running) this.spawn();
      }, 100);
    });
  }

  private async waitForPath(timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!existsSync(this.path)) {
      if (Date.now() > until) throw new Error(`socat did not create ${this.path}`);
      await new Promise((res) => setTimeout(res, 20));
    }
  }
}
