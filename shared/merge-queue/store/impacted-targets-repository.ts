// Impacted targets per (queue, pull request, head sha). Lists can hold 100,000+ targets, more
// than fits one MongoDB document, so a header document points at the current generation of
// chunk documents; a new upload writes a new generation, then switches the header, then removes
// the old chunks — a reader never sees half of an upload.
import { randomUUID } from 'node:crypto';
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../platform/database/collection.js';

export type ImpactedTargets = string[] | 'ALL';

interface HeaderDoc extends StoredDoc {
  queueId: string;
  prNumber: number;
  sha: string;
  all: boolean;
  count: number;
  generation: string;
  updatedAt: Date;
}

interface ChunkDoc extends StoredDoc {
  headerId: string;
  generation: string;
  index: number;
  targets: string[];
}

/** Targets per chunk document: keeps each chunk far below MongoDB's 16 MB document limit. */
const CHUNK_SIZE = 5_000;

export const IMPACTED_TARGET_INDEXES: IndexSpec[] = [
  { key: { queueId: 1, prNumber: 1 }, name: 'queue_pr', comment: 'targets of a pull request (readiness, planner snapshot)' },
];
export const IMPACTED_CHUNK_INDEXES: IndexSpec[] = [
  { key: { headerId: 1, generation: 1, index: 1 }, name: 'header_generation', comment: 'read one upload in order' },
];

const headerId = (queueId: string, prNumber: number, sha: string) => `${queueId}:${prNumber}:${sha.toLowerCase()}`;

/** A pull request's head, the key impacted targets are stored under. */
export interface PullRequestHead {
  prNumber: number;
  sha: string;
}

/** Impacted targets per pull request head, as the merge-queue services see them. */
export interface ImpactedTargetsRepository {
  /** Replaces the targets stored for this head (the last upload wins). */
  set(queueId: string, prNumber: number, sha: string, targets: ImpactedTargets, now?: Date): Promise<void>;
  has(queueId: string, prNumber: number, sha: string): Promise<boolean>;
  /** Null when none were uploaded for this head. */
  get(queueId: string, prNumber: number, sha: string): Promise<ImpactedTargets | null>;
  /** The targets of several heads in two reads, by `headKey`; heads without an upload are absent. */
  getMany(queueId: string, heads: readonly PullRequestHead[]): Promise<Map<string, ImpactedTargets>>;
}

/** The key getMany answers a head under. */
export const headKey = (head: PullRequestHead): string => `${head.prNumber}:${head.sha.toLowerCase()}`;

export class DbImpactedTargetsRepository implements ImpactedTargetsRepository {
  private readonly headers: DocCollection<HeaderDoc>;
  private readonly chunks: DocCollection<ChunkDoc>;
  constructor(db: Database) {
    this.headers = db.collection<HeaderDoc>('impacted_targets');
    this.chunks = db.collection<ChunkDoc>('impacted_target_chunks');
  }

  async ensureIndexes(): Promise<void> {
    await this.headers.createIndexes(IMPACTED_TARGET_INDEXES);
    await this.chunks.createIndexes(IMPACTED_CHUNK_INDEXES);
  }

  /** Replaces the targets stored for this head sha (the last upload wins, no union). */
  async set(queueId: string, prNumber: number, sha: string, targets: ImpactedTargets, now = new Date()): Promise<void> {
    const id = headerId(queueId, prNumber, sha);
    const generation = randomUUID();
    const list = targets === 'ALL' ? [] : [...new Set(targets)];
    const docs: ChunkDoc[] = [];
    for (let i = 0; i * CHUNK_SIZE < list.length; i++) {
      docs.push({ _id: `${id}:${generation}:${i}`, headerId: id, generation, index: i, targets: list.slice(i * CHUNK_SIZE, (i + 1) * CHUNK_SIZE) });
    }
    if (docs.length > 0) await this.chunks.insertMany(docs);
    const previous = await this.headers.findOneAndUpdate(
      { _id: id },
      {
        $set: { queueId, prNumber, sha: sha.toLowerCase(), all: targets === 'ALL', count: list.length, generation, updatedAt: now },
      },
      { upsert: true, returnDocument: 'before' },
    );
    if (previous) await this.chunks.deleteMany({ headerId: id, generation: previous.generation });
  }

  async has(queueId: string, prNumber: number, sha: string): Promise<boolean> {
    return (await this.headers.countDocuments({ _id: headerId(queueId, prNumber, sha) })) > 0;
  }

  /** The targets for this head sha, or null when none were uploaded. */
  async get(queueId: string, prNumber: number, sha: string): Promise<ImpactedTargets | null> {
    const header = await this.headers.findOne({ _id: headerId(queueId, prNumber, sha) });
    if (!header) return null;
    if (header.all) return 'ALL';
    const chunks = await this.chunks.find({ headerId: header._id, generation: header.generation }, { sort: { index: 1 } });
    return chunks.flatMap((c) => c.targets);
  }

  async getMany(queueId: string, heads: readonly PullRequestHead[]): Promise<Map<string, ImpactedTargets>> {
    const found = new Map<string, ImpactedTargets>();
    if (heads.length === 0) return found;
    const headers = await this.headers.find({ _id: { $in: heads.map((h) => headerId(queueId, h.prNumber, h.sha)) } });
    const listed = headers.filter((h) => !h.all);
    const chunks = listed.length === 0 ? [] : await this.chunks.find({ headerId: { $in: listed.map((h) => h._id) } }, { sort: { headerId: 1, index: 1 } });
    const generationOf = new Map(listed.map((h) => [h._id, h.generation]));
    const targetsOf = new Map<string, string[]>(listed.map((h) => [h._id, []]));
    for (const c of chunks) if (generationOf.get(c.headerId) === c.generation) targetsOf.get(c.headerId)!.push(...c.targets);
    for (const h of headers) found.set(headKey(h), h.all ? 'ALL' : targetsOf.get(h._id)!);
    return found;
  }
}
