/**
 * Downloads a release artifact from the cloud (or a mirror) over HTTPS: resumable (what is on the
 * disk stays; the next request asks for the rest with a Range header), bounded in size (never
 * more bytes than offered, and the offer no larger than the setting) and in bandwidth (reading
 * pauses to keep the average under the setting, and TCP holds the sender back), with a timeout
 * on a silent connection. The file is named by the artifact's SHA-256; it is trusted only after
 * verification (verify.ts).
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { dirname } from 'node:path';
import { fsyncDir } from './atomic-file.js';
import { announceStep } from './update-steps.js';

export interface DownloadSource {
  /** Base URL: the artifact is `<url>/updates/artifacts/<sha256>`. */
  url: string;
  /** Extra trusted CAs (PEM) for https. */
  ca?: Buffer | undefined;
  /** HTTP Basic credentials (the locker's id and its MQTT password). */
  username: string;
  password: string;
  maxBytesPerSecond: number;
  /** A connection silent this long is dropped (and the download resumed). */
  idleTimeoutMs: number;
}

export class DownloadError extends Error {
  override readonly name = 'DownloadError';
  constructor(
    message: string,
    /** A refusal that a retry will not change (404, 401, more bytes than offered). */
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

export function artifactUrl(base: string, sha256: string): URL {
  return new URL(`updates/artifacts/${sha256}`, base.endsWith('/') ? base : `${base}/`);
}

/**
 * One request for what is still missing of the artifact, appended to `part`. Resolves with the
 * bytes now on the disk; rejects with DownloadError. `onBytes` reports progress.
 */
export function fetchMissing(
  source: DownloadSource,
  artifact: { sha256: string; size: number; version: string },
  part: string,
  onBytes: (bytes: number) => void,
  signal?: AbortSignal,
): Promise<number> {
  const have = sizeOf(part);
  if (have > artifact.size) {
    rmSync(part, { force: true });
    return Promise.reject(new DownloadError('more bytes on the disk than offered; starting over', false));
  }
  if (have === artifact.size) return Promise.resolve(have);
  const url = artifactUrl(source.url, artifact.sha256);
  const headers: Record<string, string> = {
    authorization: `Basic ${Buffer.from(`${source.username}:${source.password}`).toString('base64')}`,
    'user-agent': 'parcel-locker-agent',
  };
  if (have > 0) headers.range = `bytes=${have}-`;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<number>((resolve, reject) => {
    let settled = false;
    const finish = (err: DownloadError | null, bytes = 0): void => {
      if (settled) return;
      settled = true;
      if (err) reject(err);
      else resolve(bytes);
    };
    const req = send(url, { method: 'GET', headers, ...(source.ca ? { ca: source.ca } : {}), signal }, (res) => receive(res));
    req.setTimeout(source.idleTimeoutMs, () => req.destroy(new Error('no data within the timeout')));
    req.on('error', (err) => finish(new DownloadError(`download failed: ${err.message}`, false)));
    req.end();

    function receive(res: IncomingMessage): void {
      const status = res.statusCode ?? 0;
      let offset: number;
      if (status === 206 && have > 0) offset = have;
      else if (status === 200) offset = 0; // the server ignored the range: take it from the start
      else if (status === 416 && have > 0) {
        res.resume();
        rmSync(part, { force: true });
        finish(new DownloadError('the server has no such range; starting over', false));
        return;
      } else {
        res.resume();
        finish(new DownloadError(`the server answered ${status}`, status === 401 || status === 403 || status === 404 || status === 410));
        return;
      }
      const fd = openSync(part, offset === 0 ? 'w' : 'a', 0o640);
      let written = offset;
      let announced = false;
      const started = Date.now();
      let received = 0;
      const close = (): void => {
        try {
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
      };
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        if (written + chunk.length > artifact.size) {
          close();
          rmSync(part, { force: true });
          req.destroy();
          finish(new DownloadError('the server sent more bytes than offered', true));
          return;
        }
        writeSync(fd, chunk);
        written += chunk.length;
        received += chunk.length;
        onBytes(written);
        if (!announced) {
          announced = true;
          announceStep('download', { version: artifact.version });
        }
        // Ahead of the allowed average: stop reading for the difference (TCP slows the sender).
        const aheadMs = (received / source.maxBytesPerSecond) * 1000 - (Date.now() - started);
        if (aheadMs > 5) {
          res.pause();
          setTimeout(() => res.resume(), aheadMs).unref();
        }
      });
      res.on('end', () => {
        if (settled) return;
        close();
        finish(null, written);
      });
      res.on('error', (err) => {
        if (settled) return;
        close();
        finish(new DownloadError(`download interrupted: ${err.message}`, false));
      });
      res.on('aborted', () => {
        if (settled) return;
        close();
        finish(new DownloadError('download interrupted', false));
      });
    }
  });
}

/** Moves a complete download to its final name. */
export function completeDownload(part: string, final: string): void {
  renameSync(part, final);
  fsyncDir(dirname(final));
}
