// Which organisation of the service a GitHub repository belongs to: the one that created its
// first merge queue. Another organisation cannot create a queue on it (it is told the repository
// does not exist, as for its queues, pull requests and statuses); an admin of the owner moves it
// (updateGitHubRepository). The unique `_id` (the repository key) makes the first claim win. The
// record also holds the repository's fork policy.
import type { Database, DocCollection, StoredDoc } from '../../platform/database/collection.js';
import { isDuplicateKeyError } from '../../platform/database/collection.js';
import { repoKey, type RepoRef } from '../../platform/repo-ref.js';

interface OwnerDoc extends StoredDoc {
  orgId: string;
  claimedAt: Date;
  /** Absent on records made before the policy existed: forks refused. */
  allowForkPullRequests?: boolean;
}

export interface GitHubRepositoryRecord {
  repoKey: string;
  orgId: string;
  claimedAt: Date;
  allowForkPullRequests: boolean;
}

const toRecord = (d: OwnerDoc): GitHubRepositoryRecord => ({
  repoKey: d._id,
  orgId: d.orgId,
  claimedAt: d.claimedAt,
  allowForkPullRequests: d.allowForkPullRequests ?? false,
});

/** The organisation each GitHub repository belongs to, as the services see them (DbRepositoryOwners is the database's). */
export interface RepositoryOwners {
  /** Records `orgId` as the owner unless another organisation is; true when `orgId` owns it now. */
  claim(orgId: string, repo: RepoRef, now?: Date): Promise<boolean>;
  find(repo: RepoRef): Promise<GitHubRepositoryRecord | null>;
  /** Changes the record if `orgId` still owns it; null when it does not (or there is none). */
  update(orgId: string, repo: RepoRef, patch: { orgId?: string; allowForkPullRequests?: boolean }): Promise<GitHubRepositoryRecord | null>;
}

export class DbRepositoryOwners implements RepositoryOwners {
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

  async find(repo: RepoRef): Promise<GitHubRepositoryRecord | null> {
    const d = await this.col.findOne({ _id: repoKey(repo) });
    return d ? toRecord(d) : null;
  }

  /** Changes the record if `orgId` still owns it; null when it does not (or there is none). */
  async update(orgId: string, repo: RepoRef, patch: { orgId?: string; allowForkPullRequests?: boolean }): Promise<GitHubRepositoryRecord | null> {
    const d = await this.col.findOneAndUpdate({ _id: repoKey(repo), orgId }, { $set: patch });
    return d ? toRecord(d) : null;
  }
}
