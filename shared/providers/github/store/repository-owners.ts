// Which organisation of the service a GitHub repository belongs to: the one that created its
// first merge queue. Another organisation cannot create a queue on it (it is told the repository
// does not exist, as for its queues, pull requests and statuses); only an operator changes the
// owner, by editing this collection. The unique `_id` (the repository key) makes the first claim win.
import type { Database, DocCollection, StoredDoc } from '../../../database/collection.js';
import { isDuplicateKeyError } from '../../../database/collection.js';
import { repoKey, type RepoRef } from '../../../repo-ref.js';

interface OwnerDoc extends StoredDoc {
  orgId: string;
  claimedAt: Date;
}

export class RepositoryOwners {
  private readonly col: DocCollection<OwnerDoc>;
  constructor(db: Database) {
    this.col = db.collection<OwnerDoc>('github_repository_owners');
  }

  /** Records `orgId` as the owner unless another organisation is; true when `orgId` owns it now. */
  async claim(orgId: string, repo: RepoRef, now = new Date()): Promise<boolean> {
    const key = repoKey(repo);
    const existing = await this.col.findOne({ _id: key });
    if (existing) return existing.orgId === orgId;
    try {
      await this.col.insertOne({ _id: key, orgId, claimedAt: now });
      return true;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      return (await this.col.findOne({ _id: key }))?.orgId === orgId;
    }
  }
}
