// What a queued pull request shows on GitHub about its place in the queue:
// - statusCheckEnabled: a commit status `openmq/merge-queue` on its head (pending while queued or
//   testing, success once merged, failure or error when it left the queue), and once merged, a
//   status `openmq/tested-tree` on the target branch commit when its exact tree was tested;
// - commentsEnabled: one comment, edited in place as its state changes, with the reason — and,
//   once it failed, the verdict on the failure (docs/verdicts.md): one comment per ejection.
// It reconciles rather than reacts: each pass compares the entries of GitHub queues with what was
// last published (stored per entry) and publishes only the differences, so no engine transition
// needs to know about GitHub, and a pass that failed is made good by the next one.
import { TERMINAL_ENTRY_STATES, type Entry, type EntryState, type Queue } from '../../merge-queue/domain/model.js';
import type { MergeQueueRepositories } from '../../merge-queue/store/store.js';
import type { Logger } from '../../platform/logging.js';
import type { GitHubApi } from '../../providers/github/github-api.js';
import type { PublishedFeedback, PublishedFeedbackRepository } from '../store/published-feedback-repository.js';
import type { FailureVerdict, VerdictService } from '../../merge-queue/services/verdict-service.js';

export const QUEUE_STATUS_CONTEXT = 'openmq/merge-queue';
/** On a target branch commit whose exact tree the queue tested (docs/verdicts.md#every-tree-tested-once). */
export const TESTED_TREE_CONTEXT = 'openmq/tested-tree';

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

/** What the pull request shows for an entry in `state` (which got there for `reason`). */
export function queueStatusOf(state: EntryState, reason: string): QueueStatus {
  if (state === 'merged') return { state: 'success', description: 'Merged by the merge queue' };
  if (state === 'failed') return { state: 'failure', description: `Failed in the merge queue: ${reason}` };
  if (state === 'cancelled') return { state: 'error', description: `Removed from the merge queue: ${reason}` };
  return { state: 'pending', description: ACTIVE_DESCRIPTIONS[state] ?? state };
}

/** What the comment of a stack member says about its stack: queued with it, or landed with it. */
function stackLines(entry: Entry): string[] {
  if (!entry.stack) return [];
  const { position, size, belowPr } = entry.stack;
  const place = `member ${position} of ${size} of a stack${belowPr === null ? ' (the bottom)' : `, on #${belowPr}`}`;
  if (entry.state === 'merged') return [`Landed in order with its stack, as ${place}.`, ''];
  if (TERMINAL_ENTRY_STATES.includes(entry.state)) return [];
  return [`Queued as ${place}: the stack is tested once and lands in order.`, ''];
}

const VERDICT_HEADLINES: Record<FailureVerdict['kind'], string> = {
  yours: 'this pull request’s own failure',
  flaky: 'not its fault — flaky tests',
  target_branch: `not its fault — the target branch fails too`,
  infrastructure: 'not its fault — infrastructure',
  interaction: 'not its fault alone — it fails only together with another pull request',
  unknown: 'not decided',
};

const MAX_LISTED_TESTS = 5;

/** Whose fault the failure was, and the evidence per failed test (at most five). */
function verdictLines(verdict: FailureVerdict | null, queue: Queue): string[] {
  if (!verdict) return [];
  const outcome = (o: 'passed' | 'failed' | null) => o ?? 'not run';
  const tests = verdict.tests.slice(0, MAX_LISTED_TESTS).map((t) => {
    const history = t.quarantined ? 'quarantined' : t.knownFlaky ? 'known flaky' : 'not known flaky';
    return `- \`${t.name}\`: ${history}; on \`${queue.branch}\` without this change: ${outcome(t.onTarget)}; on this pull request’s head: ${outcome(t.onHead)}`;
  });
  const more = verdict.tests.length > MAX_LISTED_TESTS ? [`- …and ${verdict.tests.length - MAX_LISTED_TESTS} more`] : [];
  return [
    `**Was it this pull request’s fault?** Verdict: ${VERDICT_HEADLINES[verdict.kind]} — ${verdict.summary} (rule \`${verdict.rule}\`, test run ${verdict.testRunId}).`,
    ...(verdict.missing ? [`What would decide it: ${verdict.missing}.`] : []),
    ...(tests.length > 0 ? ['', ...tests, ...more] : []),
    '',
  ];
}

/** The body of the pull request's queue comment; `verdict` once it failed. */
export function queueCommentOf(entry: Entry, queue: Queue, verdict: FailureVerdict | null = null): string {
  const { description } = queueStatusOf(entry.state, entry.lastReason);
  const detail = entry.history.at(-1)?.detail;
  return [
    `**Merge queue** (\`${queue.branch}\`): ${description}.`,
    '',
    ...stackLines(entry),
    `State \`${entry.state}\`, reason \`${entry.lastReason}\`${detail ? `: ${detail}` : ''}.`,
    '',
    ...verdictLines(verdict, queue),
    `<sub>Head ${entry.prSha.slice(0, 12)} · queue entry ${entry.id}</sub>`,
  ].join('\n');
}

export interface PullRequestFeedbackDeps {
  published: PublishedFeedbackRepository;
  store: Pick<MergeQueueRepositories, 'entries' | 'queues'>;
  verdicts: Pick<VerdictService, 'of'>;
  api: GitHubApi;
  logger: Logger;
}

export class PullRequestFeedback {
  constructor(private readonly deps: PullRequestFeedbackDeps) {}

  /** One reconciliation pass; returns how many statuses and comments were posted or edited. */
  async publish(): Promise<number> {
    const queues = new Map<string, Queue | null>();
    const queueOf = async (id: string): Promise<Queue | null> => {
      if (!queues.has(id)) {
        const q = await this.deps.store.queues.findById(id);
        queues.set(id, q && (q.statusCheckEnabled || q.commentsEnabled) && this.deps.api.serves(q.repo) ? q : null);
      }
      return queues.get(id) ?? null;
    };
    const active = await this.deps.store.entries.listActiveAll();
    const activeIds = new Set(active.map((e) => e.id));
    // Entries published as active that are no longer: they ended, their final state is due.
    const ended = (await this.deps.published.listUnfinishedIds()).filter((id) => !activeIds.has(id));
    const entries = [...active, ...(await this.deps.store.entries.findByIds(ended))];
    let posted = 0;
    for (const entry of entries) {
      const queue = await queueOf(entry.queueId);
      if (!queue) continue;
      try {
        posted += await this.publishEntry(queue, entry);
      } catch (err) {
        this.deps.logger.warn({ err, entryId: entry.id, prNumber: entry.prNumber }, 'pull request feedback not published; tried again next pass');
      }
    }
    return posted;
  }

  private async publishEntry(queue: Queue, entry: Entry): Promise<number> {
    const last = await this.deps.published.find(entry.id);
    const next: PublishedFeedback = {
      entryId: entry.id,
      queueId: entry.queueId,
      status: last?.status ?? null,
      comment: last?.comment ?? null,
      commentId: last?.commentId ?? null,
    };
    let posted = 0;
    if (queue.statusCheckEnabled && next.status !== entry.state) {
      const status = queueStatusOf(entry.state, entry.lastReason);
      await this.deps.api.postCommitStatus(queue.repo, entry.prSha, { context: QUEUE_STATUS_CONTEXT, ...status });
      if (entry.state === 'merged' && entry.mergedSha && entry.mergedTestedTree) {
        // Post-merge CI can skip work on a commit whose very tree already passed.
        await this.deps.api.postCommitStatus(queue.repo, entry.mergedSha, {
          context: TESTED_TREE_CONTEXT,
          state: 'success',
          description: `Tree ${entry.mergedTestedTree.slice(0, 12)} passed the merge queue's required checks in test run ${entry.verifiedByTestRun ?? ''}`,
        });
        posted++;
      }
      next.status = entry.state;
      posted++;
    }
    if (queue.commentsEnabled && next.comment !== entry.state) {
      const verdict = entry.state === 'failed' ? await this.deps.verdicts.of(queue, entry) : null;
      next.commentId = await this.deps.api.upsertComment(queue.repo, entry.prNumber, next.commentId, queueCommentOf(entry, queue, verdict));
      next.comment = entry.state;
      posted++;
    }
    if (posted > 0 || !last) {
      await this.deps.published.record(next, TERMINAL_ENTRY_STATES.includes(entry.state));
    }
    return posted;
  }
}
