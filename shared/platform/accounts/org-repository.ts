// Organisations: the tenant boundary. Every queue, entry, token and test belongs to one.
import { randomUUID } from 'node:crypto';
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../database/collection.js';
import { isDuplicateKeyError } from '../database/collection.js';

export interface Org {
  id: string;
  slug: string;
  createdAt: Date;
}

interface OrgDoc extends StoredDoc {
  slug: string;
  createdAt: Date;
}

export const ORG_INDEXES: IndexSpec[] = [
  { key: { slug: 1 }, name: 'slug_unique', unique: true, comment: 'find an organisation by slug (tokens, flaky-tests org_url_slug)' },
];

const toOrg = (d: OrgDoc): Org => ({ id: d._id, slug: d.slug, createdAt: d.createdAt });

/** Organisations as the services see them. */
export interface OrgRepository {
  findById(id: string): Promise<Org | null>;
  findBySlug(slug: string): Promise<Org | null>;
  /** The organisation with this slug, created if needed (safe under races). */
  ensure(slug: string, now?: Date): Promise<Org>;
}

export class DbOrgRepository implements OrgRepository {
  private readonly col: DocCollection<OrgDoc>;
  constructor(db: Database) {
    this.col = db.collection<OrgDoc>('orgs');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(ORG_INDEXES);
  }

  async findById(id: string): Promise<Org | null> {
    const d = await this.col.findOne({ _id: id });
    return d ? toOrg(d) : null;
  }

  async findBySlug(slug: string): Promise<Org | null> {
    const d = await this.col.findOne({ slug });
    return d ? toOrg(d) : null;
  }

  /** Returns the organisation with this slug, creating it if needed (safe under races). */
  async ensure(slug: string, now = new Date()): Promise<Org> {
    const existing = await this.findBySlug(slug);
    if (existing) return existing;
    try {
      const doc: OrgDoc = { _id: randomUUID(), slug, createdAt: now };
      await this.col.insertOne(doc);
      return toOrg(doc);
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      const raced = await this.findBySlug(slug);
      if (!raced) throw err;
      return raced;
    }
  }
}
