// What the poll interval of a GitHub repository depends on: when signed webhook deliveries for it
// (or for its App installation) last arrived, and when each of its queues was last polled. Rows
// are read by _id only: no index beyond it.
import type { Database, DocCollection, StoredDoc } from '../../platform/database/collection.js';

interface PollStateDoc extends StoredDoc {
  /** `repo:<repoKey>`, `installation:<id>` (deliveries), `queue:<queueId>` (polls). */
  at: Date;
  /** On `repo:` rows: the installation the repository's deliveries came through. */
  installationId?: number | null;
}

/** When each queue's repository was polled and last heard from, as the services see them (DbPollStateRepository is the database's). */
export interface PollStateRepository {
  /** A verified delivery that names the repository and/or the installation arrived at `at`. */
  deliveryArrived(source: { repoKey: string | null; installationId: number | null }, at: Date): Promise<void>;
  /** The last delivery for the repository or for the installation its deliveries came through; null: none seen. */
  lastDeliveryFor(repoKey: string): Promise<Date | null>;
  lastPolled(queueId: string): Promise<Date | null>;
  polled(queueId: string, at: Date): Promise<void>;
}

export class DbPollStateRepository implements PollStateRepository {
  private readonly col: DocCollection<PollStateDoc>;

  constructor(db: Database) {
    this.col = db.collection<PollStateDoc>('github_poll_state');
  }

  /** A verified delivery that names the repository and/or the installation arrived at `at`. */
  async deliveryArrived(source: { repoKey: string | null; installationId: number | null }, at: Date): Promise<void> {
    // $max: deliveries are processed out of order; the latest arrival wins.
    if (source.repoKey !== null) {
      const installation = source.installationId === null ? {} : { $set: { installationId: source.installationId } };
      await this.col.updateOne({ _id: `repo:${source.repoKey}` }, { $max: { at }, ...installation }, { upsert: true });
    }
    if (source.installationId !== null) await this.col.updateOne({ _id: `installation:${source.installationId}` }, { $max: { at } }, { upsert: true });
  }

  /** The last delivery for the repository or for the installation its deliveries came through; null: none seen. */
  async lastDeliveryFor(repoKey: string): Promise<Date | null> {
    const repo = await this.col.findOne({ _id: `repo:${repoKey}` });
    if (!repo) return null;
    const installation = typeof repo.installationId === 'number' ? await this.col.findOne({ _id: `installation:${repo.installationId}` }) : null;
    return installation && installation.at > repo.at ? installation.at : repo.at;
  }

  async lastPolled(queueId: string): Promise<Date | null> {
    return (await this.col.findOne({ _id: `queue:${queueId}` }))?.at ?? null;
  }

  async polled(queueId: string, at: Date): Promise<void> {
    await this.col.updateOne({ _id: `queue:${queueId}` }, { $set: { at } }, { upsert: true });
  }
}
