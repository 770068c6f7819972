/**
 * Signed agent releases (table releases): the artifact as the operator signed it, and what the
 * cloud read from its verified manifest. The artifact's bytes are read only by the download.
 */
import { releaseManifestSchema, type ReleaseManifest } from '../../../shared/src/release.js';
import type { Tx } from '../db/transaction.js';

export interface Release {
  id: number;
  version: string;
  minProtocol: number;
  rollbackFrom: string[];
  keyId: string;
  sha256: string;
  size: number;
  notes: string | null;
  createdAt: number;
  createdBy: string;
  manifest: ReleaseManifest;
}

export interface NewRelease {
  manifest: ReleaseManifest;
  /** The manifest's signed text. */
  manifestText: string;
  sha256: string;
  artifact: Buffer;
  createdAt: number;
  createdBy: string;
}

const COLUMNS = ['id', 'version', 'min_protocol', 'rollback_from', 'key_id', 'manifest', 'sha256', 'size', 'notes', 'created_at', 'created_by'] as const;

type Row = { id: number; version: string; min_protocol: number; rollback_from: string; key_id: string; manifest: string; sha256: string; size: number; notes: string | null; created_at: number; created_by: string };

function toRelease(r: Row): Release {
  return {
    id: Number(r.id),
    version: r.version,
    minProtocol: r.min_protocol,
    rollbackFrom: JSON.parse(r.rollback_from) as string[],
    keyId: r.key_id,
    sha256: r.sha256,
    size: Number(r.size),
    notes: r.notes,
    createdAt: Number(r.created_at),
    createdBy: r.created_by,
    manifest: releaseManifestSchema.parse(JSON.parse(r.manifest)),
  };
}

/** The new release's id; undefined when an artifact with this digest is stored already. */
export async function insertRelease(db: Tx, r: NewRelease): Promise<number | undefined> {
  const row = await db
    .insertInto('releases')
    .values({
      version: r.manifest.version,
      min_protocol: r.manifest.minProtocol,
      rollback_from: JSON.stringify(r.manifest.rollbackFrom),
      key_id: r.manifest.keyId,
      manifest: r.manifestText,
      sha256: r.sha256,
      size: r.artifact.length,
      artifact: r.artifact,
      notes: r.manifest.notes ?? null,
      created_at: r.createdAt,
      created_by: r.createdBy,
    })
    .onConflict((oc) => oc.column('sha256').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row ? Number(row.id) : undefined;
}

export async function releaseById(db: Tx, id: number): Promise<Release | undefined> {
  const row = await db.selectFrom('releases').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  return row && toRelease(row);
}

export async function releaseBySha256(db: Tx, sha256: string): Promise<Release | undefined> {
  const row = await db.selectFrom('releases').select(COLUMNS).where('sha256', '=', sha256).executeTakeFirst();
  return row && toRelease(row);
}

/** Newest first. */
export async function listReleases(db: Tx, q: { offset: number; limit: number }): Promise<{ items: Release[]; total: number }> {
  const total = await db.selectFrom('releases').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await db.selectFrom('releases').select(COLUMNS).orderBy('id', 'desc').offset(q.offset).limit(q.limit).execute();
  return { items: rows.map(toRelease), total: Number(total.n) };
}

/** The artifact's bytes, if a release has this digest. */
export async function releaseArtifact(db: Tx, sha256: string): Promise<{ id: number; artifact: Buffer } | undefined> {
  const row = await db.selectFrom('releases').select(['id', 'artifact']).where('sha256', '=', sha256).executeTakeFirst();
  return row && { id: Number(row.id), artifact: Buffer.from(row.artifact) };
}
