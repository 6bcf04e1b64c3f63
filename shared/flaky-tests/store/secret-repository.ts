// Server-side secrets the flaky-tests API needs (the page-token signing key). Generated once,
// stored in the database so every API process of a deployment shares them, never sent out.
import { randomBytes } from 'node:crypto';
import type { Database, DocCollection, StoredDoc } from '../../platform/database/collection.js';
import { isDuplicateKeyError } from '../../platform/database/collection.js';

interface SecretDoc extends StoredDoc {
  value: string;
  createdAt: Date;
}

/** Secrets the service keeps in its database, as the services see them (DbSecretRepository is the database's). */
export interface SecretRepository {
  /** The named 32-byte secret, created on first use (the first writer wins a race). */
  get(name: string): Promise<Buffer>;
}

export class DbSecretRepository implements SecretRepository {
  private readonly col: DocCollection<SecretDoc>;
  private readonly cache = new Map<string, Buffer>();
  constructor(db: Database) {
    this.col = db.collection<SecretDoc>('flaky_secrets');
  }

  /** The named 32-byte secret, created on first use (the first writer wins a race). */
  async get(name: string): Promise<Buffer> {
    const cached = this.cache.get(name);
    if (cached) return cached;
    let doc = await this.col.findOne({ _id: name });
    if (!doc) {
      try {
        await this.col.insertOne({ _id: name, value: randomBytes(32).toString('base64'), createdAt: new Date() });
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
      doc = await this.col.findOne({ _id: name });
      if (!doc) throw new Error(`secret ${name} could not be created`);
    }
    const value = Buffer.from(doc.value, 'base64');
    this.cache.set(name, value);
    return value;
  }
}
