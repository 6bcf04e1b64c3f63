// Upload URLs handed to the hosted CLI by createBundleUpload. The URL works like a presigned
// object-store URL: it carries a random key instead of an API token. Only the key's SHA-256 is
// stored, compared in constant time; the URL can be used once and only until it expires.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../platform/database/collection.js';
import type { BundleUpload } from '../domain/model.js';

type BundleUploadDoc = StoredDoc & Omit<BundleUpload, 'id'> & { keyHash: string };

export const BUNDLE_UPLOAD_INDEXES: IndexSpec[] = [
  { key: { expiresAt: 1 }, name: 'expires_at_ttl', expireAfterSeconds: 0, comment: 'upload URLs disappear when they expire' },
];

export const hashUploadKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

const toBundleUpload = (d: BundleUploadDoc): BundleUpload => {
  const { _id, keyHash: _k, ...rest } = d;
  return { id: _id, ...rest };
};

/** Issued bundle upload URLs, as the services see them (DbBundleUploadRepository is the database's). */
export interface BundleUploadRepository {
  create(upload: BundleUpload, key: string): Promise<void>;
  /**
   * Claims a pending, unexpired upload URL whose key matches: pending → receiving, atomically, so
   * a URL is used at most once. Null when the id is unknown, the key wrong, used or expired.
   */
  claim(id: string, key: string, now: Date): Promise<BundleUpload | null>;
  finish(id: string, result: { state: 'complete' | 'failed'; uploadId: string | null; error: string | null }): Promise<void>;
}

export class DbBundleUploadRepository implements BundleUploadRepository {
  private readonly col: DocCollection<BundleUploadDoc>;
  constructor(db: Database) {
    this.col = db.collection<BundleUploadDoc>('flaky_bundle_uploads');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(BUNDLE_UPLOAD_INDEXES);
  }

  async create(upload: BundleUpload, key: string): Promise<void> {
    const { id, ...rest } = upload;
    await this.col.insertOne({ _id: id, ...rest, keyHash: hashUploadKey(key) });
  }

  /**
   * Claims a pending, unexpired upload URL whose key matches: pending → receiving, atomically, so
   * a URL is used at most once. Null when the id is unknown, the key wrong, used or expired.
   */
  async claim(id: string, key: string, now: Date): Promise<BundleUpload | null> {
    const d = await this.col.findOne({ _id: id });
    if (!d) return null;
    const presented = Buffer.from(hashUploadKey(key), 'hex');
    const stored = Buffer.from(d.keyHash, 'hex');
    if (presented.length !== stored.length || !timingSafeEqual(presented, stored)) return null;
    const claimed = await this.col.findOneAndUpdate(
      { _id: id, keyHash: d.keyHash, state: 'pending', expiresAt: { $gt: now } },
      { $set: { state: 'receiving' } },
    );
    return claimed ? toBundleUpload(claimed) : null;
  }

  async finish(id: string, result: { state: 'complete' | 'failed'; uploadId: string | null; error: string | null }): Promise<void> {
    await this.col.updateOne({ _id: id, state: 'receiving' }, { $set: result });
  }
}
