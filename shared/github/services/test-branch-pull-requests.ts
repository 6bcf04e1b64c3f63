// createPrsForTestingBranches on GitHub: while a test run tests, its test branch has a draft pull
// request into the target (for CI that runs on pull requests, and for people following the queue
// on GitHub); once the run ended — passed, failed, cancelled, preempted, restarted or timed out —
// the pull request is closed (the planner deletes the branch as before).
//
// It reconciles rather than reacts, like the pull request feedback: each pass compares the runs
// in progress with the rows of opened pull requests. A row is written before GitHub is asked and
// GitHub is asked for the open pull request of the branch before one is created, so a retried or
// interrupted pass never opens a second one, and an interrupted one is still closed.
import type { Entry, Queue, TestRun } from '../../merge-queue/domain/model.js';
import type { MergeQueueRepositories } from '../../merge-queue/store/store.js';
import type { OrgRepository } from '../../platform/accounts/org-repository.js';
import { pullRequestLink, testRunLink } from '../../merge-queue/events/event-payloads.js';
import type { Logger } from '../../platform/logging.js';
import type { GitHubApi } from '../../providers/github/github-api.js';
import type { TestBranchPullRequest, TestBranchPullRequestRepository } from '../store/test-branch-pull-request-repository.js';

export interface TestBranchPullRequestsDeps {
  pulls: TestBranchPullRequestRepository;
  store: Pick<MergeQueueRepositories, 'queues' | 'testRuns' | 'entries'>;
  orgs: Pick<OrgRepository, 'findById'>;
  api: GitHubApi;
  /** PUBLIC_URL (or the service's own address): the base of the dashboard links. */
  baseUrl: string;
  logger: Logger;
}

/** The draft pull request's title and body: what it tests, and where to follow it. */
export function draftPullRequestText(
  queue: Queue,
  run: TestRun,
  tested: Entry[],
  base: Entry[],
  links: { run: string; pull: (n: number) => string },
): { title: string; body: string } {
  const numbers = tested.map((e) => `#${e.prNumber}`).join(', ');
  const line = (e: Entry) => `- #${e.prNumber} ${e.prTitle} ([queue](${links.pull(e.prNumber)}))`;
  const body = [
    `The merge queue of \`${queue.branch}\` is testing ${tested.length === 1 ? 'this pull request' : 'these pull requests'} on test branch \`${run.branch}\`:`,
    '',
    ...tested.map(line),
    ...(base.length > 0 ? ['', 'on top of the pull requests ahead of them in the queue:', '', ...base.map(line)] : []),
    '',
    `Test run: ${links.run}`,
    '',
    '<sub>Opened by the merge queue (createPrsForTestingBranches) and closed when the test run ends. Do not merge or edit it.</sub>',
  ].join('\n');
  return { title: `Merge queue: testing ${numbers} into ${queue.branch}`, body };
}

export class TestBranchPullRequests {
  constructor(private readonly deps: TestBranchPullRequestsDeps) {}

  /** Every GitHub queue: opens what is missing, closes what ended. Returns how many pull requests were opened or closed. */
  async reconcileAll(): Promise<number> {
    let changed = 0;
    for (const queueId of await this.deps.store.testRuns.queueIdsWithOpenRuns()) changed += await this.openMissing(queueId);
    return changed + (await this.closeEnded(await this.deps.pulls.listUnclosed()));
  }

  /** One queue, right after a planning pass built or ended its runs. */
  async reconcileQueue(queueId: string): Promise<number> {
    const opened = await this.openMissing(queueId);
    return opened + (await this.closeEnded(await this.deps.pulls.listUnclosed(queueId)));
  }

  private async openMissing(queueId: string): Promise<number> {
    const queue = await this.deps.store.queues.findById(queueId);
    if (!queue || !queue.createPrsForTestingBranches || !this.deps.api.serves(queue.repo)) return 0;
    let opened = 0;
    for (const run of await this.deps.store.testRuns.listOpen(queueId)) {
      // Only a pushed branch can be the head of a pull request.
      if (run.status !== 'in_progress' || run.sha === null) continue;
      const row = await this.deps.pulls.find(run.id);
      if (row && row.state !== 'opening') continue;
      if (!row && !(await this.deps.pulls.begin({ testRunId: run.id, queueId, repo: queue.repo, branch: run.branch }))) continue;
      try {
        const number = await this.deps.api.openDraftPullRequest(queue.repo, { head: run.branch, base: queue.branch, ...(await this.textOf(queue, run)) });
        await this.deps.pulls.markOpen(run.id, number);
        this.deps.logger.info({ testRunId: run.id, prNumber: number }, 'draft pull request opened for a test branch');
        opened++;
      } catch (err) {
        this.deps.logger.warn({ err, testRunId: run.id }, 'draft pull request for a test branch not opened; tried again next pass');
      }
    }
    return opened;
  }

  private async closeEnded(rows: TestBranchPullRequest[]): Promise<number> {
    let closed = 0;
    for (const row of rows) {
      const run = await this.deps.store.testRuns.findById(row.testRunId);
      if (run?.status === 'in_progress') continue;
      try {
        // An `opening` row: GitHub may have created it without the answer reaching us.
        const number = row.prNumber ?? (await this.deps.api.openPullRequestFrom(row.repo, row.branch));
        if (number !== null) await this.deps.api.closePullRequest(row.repo, number);
        await this.deps.pulls.markClosed(row.testRunId);
        this.deps.logger.info({ testRunId: row.testRunId, prNumber: row.prNumber }, 'draft pull request of an ended test run closed');
        closed++;
      } catch (err) {
        this.deps.logger.warn({ err, testRunId: row.testRunId }, 'draft pull request of an ended test run not closed; tried again next pass');
      }
    }
    return closed;
  }

  private async textOf(queue: Queue, run: TestRun): Promise<{ title: string; body: string }> {
    const entries = new Map((await this.deps.store.entries.findByIds([...run.baseEntryIds, ...run.entryIds])).map((e) => [e.id, e]));
    const pick = (ids: string[]) => ids.map((id) => entries.get(id)).filter((e): e is Entry => e !== undefined);
    const org = await this.deps.orgs.findById(queue.orgId);
    const slug = org?.slug ?? queue.orgId;
    return draftPullRequestText(queue, run, pick(run.entryIds), pick(run.baseEntryIds), {
      run: testRunLink(this.deps.baseUrl, slug, queue, run.id),
      pull: (n) => pullRequestLink(this.deps.baseUrl, slug, queue, n),
    });
  }
}
