// statusCheckEnabled on GitHub: a commit status `openmq/merge-queue` on each queued pull
// request's head, showing its state in the queue (pending while queued or testing, success once
// merged, failure or error when it left the queue). It reconciles rather than reacts: each pass
// compares the entries of GitHub queues with what was last published (stored per entry) and posts
// only the differences, so no engine transition needs to know about GitHub, and a pass that failed
// is made good by the next one.
import type { Entry, EntryState, Queue } from '../../merge-queue/domain/model.js';
import type { MergeQueueRepositories } from '../../merge-queue/store/store.js';
import type { Database, DocCollection, StoredDoc } from '../../database/collection.js';
import type { Logger } from '../../logging.js';
import type { GitHubProvider } from './github-provider.js';

export const QUEUE_STATUS_CONTEXT = 'openmq/merge-queue';

interface PublishedDoc extends StoredDoc {
  queueId: string;
  /** The state last published; the entry is done once a terminal state is published. */
  state: EntryState;
  done: boolean;
}

export interface QueueStatus {
  state: 'pending' | 'success' | 'failure' | 'error';
  description: string;
}

const ACTIVE_DESCRIPTIONS: Partial<Record<EntryState, string>> = {
  not_ready: 'Waiting to be ready for the merge queue',
  pending: 'Queued',
  testing: 'Testing in the merge queue',
  tests_passed: 'Tests passed; merging',
  pending_failure: 'Tests failed; waiting for the pull requests ahead',
};

/** What the pull request's status says for an entry in `state` (left the queue for `reason`). */
export function queueStatusOf(state: EntryState, reason: string): QueueStatus {
  if (state === 'merged') return { state: 'success', description: 'Merged by the merge queue' };
  if (state === 'failed') return { state: 'failure', description: `Failed in the merge queue: ${reason}` };
  if (state === 'cancelled') return { state: 'error', description: `Removed from the merge queue: ${reason}` };
  return { state: 'pending', description: ACTIVE_DESCRIPTIONS[state] ?? state };
}

export interface QueueStatusPublisherDeps {
  db: Database;
  store: Pick<MergeQueueRepositories, 'entries' | 'queues'>;
  provider: GitHubProvider;
  logger: Logger;
}

export class QueueStatusPublisher {
  private readonly published: DocCollection<PublishedDoc>;

  constructor(private readonly deps: QueueStatusPublisherDeps) {
    this.published = deps.db.collection<PublishedDoc>('github_queue_statuses');
  }

  /** One reconciliation pass; returns how many statuses were posted. */
  async publish(): Promise<number> {
    const queues = new Map<string, Queue | null>();
    const queueOf = async (id: string): Promise<Queue | null> => {
      if (!queues.has(id)) {
        const q = await this.deps.store.queues.findById(id);
        queues.set(id, q && q.statusCheckEnabled && this.deps.provider.serves(q.repo) ? q : null);
      }
      return queues.get(id) ?? null;
    };
    const active = await this.deps.store.entries.listActiveAll();
    const activeIds = new Set(active.map((e) => e.id));
    // Entries published as active that are no longer: they ended, their final state is due.
    const ended = (await this.published.find({ done: false })).filter((p) => !activeIds.has(p._id)).map((p) => p._id);
    const entries = [...active, ...(await this.deps.store.entries.findByIds(ended))];
    let posted = 0;
    for (const entry of entries) {
      const queue = await queueOf(entry.queueId);
      if (!queue) continue;
      try {
        if (await this.publishEntry(queue, entry)) posted++;
      } catch (err) {
        this.deps.logger.warn({ err, entryId: entry.id, prNumber: entry.prNumber }, 'queue status not published; tried again next pass');
      }
    }
    return posted;
  }

  private async publishEntry(queue: Queue, entry: Entry): Promise<boolean> {
    const last = await this.published.findOne({ _id: entry.id });
    if (last?.state === entry.state) return false;
    const status = queueStatusOf(entry.state, entry.lastReason);
    await this.deps.provider.postCommitStatus(queue.repo, entry.prSha, { context: QUEUE_STATUS_CONTEXT, ...status });
    const done = status.state !== 'pending';
    await this.published.updateOne({ _id: entry.id }, { $set: { queueId: entry.queueId, state: entry.state, done } }, { upsert: true });
    return true;
  }
}
