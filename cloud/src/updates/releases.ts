/**
 * Releases as operators upload and see them. An upload is checked as an agent will check it (the
 * form, an Ed25519 signature by a key of RELEASE_PUBLIC_KEYS, the payload's length and digest)
 * and against this cloud (the link protocol it speaks), then kept whole; the same artifact again
 * is the same release.
 */
import { PROTOCOL_VERSION } from '../../../shared/src/protocol.js';
import { ReleaseError, releaseKey, sha256, verifyRelease } from '../../../shared/src/release.js';
import { transaction } from '../db/transaction.js';
import type { DomainError} from '../errors.js';
import { invalidRequest } from '../errors.js';
import { type Actor, audit, targets } from '../operator/audit.js';
import { insertRelease, listReleases, releaseById, releaseBySha256, type Release } from '../repositories/releases.js';
import type { ServiceDeps } from '../services.js';

export interface ReleaseView {
  id: number;
  version: string;
  minProtocol: number;
  rollbackFrom: string[];
  keyId: string;
  sha256: string;
  size: number;
  files: number;
  notes: string | null;
  createdAt: string;
  createdBy: string;
}

export function releaseView(r: Release): ReleaseView {
  return {
    id: r.id,
    version: r.version,
    minProtocol: r.minProtocol,
    rollbackFrom: r.rollbackFrom,
    keyId: r.keyId,
    sha256: r.sha256,
    size: r.size,
    files: r.manifest.files.length,
    notes: r.notes,
    createdAt: new Date(r.createdAt).toISOString(),
    createdBy: r.createdBy,
  };
}

const NOT_FOUND_RU = { release: (id: string) => `выпуск ${id} не найден`, rollout: (id: string) => `раскатка ${id} не найдена` } as const;

export function notFound(kind: keyof typeof NOT_FOUND_RU, id: string): DomainError {
  return invalidRequest({ ru: NOT_FOUND_RU[kind](id), en: `${kind} ${id} not found` }, { status: 404 });
}

export async function uploadRelease(deps: ServiceDeps, artifactBase64: string, actor: Actor): Promise<{ release: ReleaseView; created: boolean }> {
  const keys = deps.config.releasePublicKeys;
  if (keys.length === 0) throw invalidRequest({ ru: 'облако не доверяет ни одному ключу подписи выпусков: задайте RELEASE_PUBLIC_KEYS', en: 'this cloud trusts no release signing key: set RELEASE_PUBLIC_KEYS' });
  const artifact = Buffer.from(artifactBase64, 'base64');
  if (artifact.length > deps.config.releaseMaxBytes) throw invalidRequest({ ru: `в артефакте ${artifact.length} байт; допустимо не больше ${deps.config.releaseMaxBytes} (RELEASE_MAX_BYTES)`, en: `the artifact has ${artifact.length} bytes; at most ${deps.config.releaseMaxBytes} (RELEASE_MAX_BYTES)` });
  let head;
  try {
    head = verifyRelease(artifact, keys.map(releaseKey));
  } catch (err) {
    if (err instanceof ReleaseError) throw invalidRequest({ ru: `выпуск отклонён (${err.reason}): «${err.message}»`, en: `release refused (${err.reason}): ${err.message}` });
    throw err;
  }
  const m = head.manifest;
  if (m.minProtocol > PROTOCOL_VERSION) throw invalidRequest({ ru: `выпуску нужен протокол связи ${m.minProtocol}; облако поддерживает ${PROTOCOL_VERSION}`, en: `the release needs link protocol ${m.minProtocol}; this cloud speaks ${PROTOCOL_VERSION}` });
  const digest = sha256(artifact);
  const now = deps.clock.now();
  const out = await transaction(deps.cdb, async (tx) => {
    const id = await insertRelease(tx, { manifest: m, manifestText: head.manifestBytes.toString('utf8'), sha256: digest, artifact, createdAt: now, createdBy: actor.operator });
    if (id === undefined) return { release: (await releaseBySha256(tx, digest))!, created: false };
    await audit(tx, actor, now, 'release.upload', targets.release(id), { version: m.version, sha256: digest, size: artifact.length, keyId: m.keyId, rollbackFrom: m.rollbackFrom });
    return { release: (await releaseById(tx, id))!, created: true };
  });
  deps.logger.info({ releaseId: out.release.id, version: m.version, size: artifact.length, created: out.created }, 'release uploaded');
  return { release: releaseView(out.release), created: out.created };
}

export async function releasePage(deps: ServiceDeps, page: number, pageSize: number) {
  const { items, total } = await listReleases(deps.cdb.db, { offset: (page - 1) * pageSize, limit: pageSize });
  return { items: items.map(releaseView), total, page, pageSize };
}

export async function releaseDetail(deps: ServiceDeps, id: number): Promise<ReleaseView & { manifest: Release['manifest'] }> {
  const r = await releaseById(deps.cdb.db, id);
  if (!r) throw notFound('release', String(id));
  return { ...releaseView(r), manifest: r.manifest };
}
