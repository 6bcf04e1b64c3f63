// The v2 API addresses repositories and pull requests by id. Each id is derived from what it names
// (domain/resource-ids.ts), so it is the same in every process and after every restart; this
// repository remembers what each id handed out names, so a request that brings one back can be
// answered. Written (idempotently) whenever an answer hands out an id.
import type { Database, DocCollection, StoredDoc } from '../../platform/database/collection.js';
import type { RepoRef } from '../../platform/repo-ref.js';

export type ResourceRef = { kind: 'repository'; orgId: string; repo: RepoRef } | { kind: 'pull_request'; orgId: string; repo: RepoRef; number: number };

export type StoredResourceRef = ResourceRef & { id: string; createdAt: Date };

interface ResourceDoc extends StoredDoc {
  orgId: string;
  kind: ResourceRef['kind'];
  repo: RepoRef;
  number?: number;
  createdAt: Date;
}

export class DbResourceIdRepository {
  private readonly col: DocCollection<ResourceDoc>;
  constructor(db: Database) {
    this.col = db.collection<ResourceDoc>('resource_ids');
  }

  /** Remembers what each id names; ids already known are left as they are. */
  async remember(refs: readonly (ResourceRef & { id: string })[], now = new Date()): Promise<void> {
    if (refs.length === 0) return;
    await this.col.bulkWrite(
      refs.map((ref) => ({
        updateOne: {
          filter: { _id: ref.id },
          update: {
            $setOnInsert: { orgId: ref.orgId, kind: ref.kind, repo: ref.repo, ...(ref.kind === 'pull_request' ? { number: ref.number } : {}), createdAt: now },
          },
          upsert: true,
        },
      })),
      { ordered: false },
    );
  }

  /** What `id` names in `orgId`; null when unknown there (another organisation's id included). */
  async find(orgId: string, id: string): Promise<StoredResourceRef | null> {
    const d = await this.col.findOne({ _id: id, orgId });
    return d ? toRef(d) : null;
  }

  /** What each of `ids` names in `orgId`, by id; unknown ones are absent. */
  async findMany(orgId: string, ids: readonly string[]): Promise<Map<string, StoredResourceRef>> {
    if (ids.length === 0) return new Map();
    const docs = await this.col.find({ _id: { $in: [...ids] }, orgId });
    return new Map(docs.map((d) => [d._id, toRef(d)]));
  }
}

function toRef(d: ResourceDoc): StoredResourceRef {
  const base = { id: d._id, orgId: d.orgId, repo: d.repo, createdAt: d.createdAt };
  if (d.kind === 'pull_request' && d.number !== undefined) return { ...base, kind: 'pull_request', number: d.number };
  return { ...base, kind: 'repository' };
}
