// "Was this commit's tree tested?" (issue 26 §3): for a commit of a queue's target branch, whether
// the queue made it with a merge the forge checked to produce exactly the tree a passing test run
// tested, by which run, and with which required statuses. Post-merge CI asks it (`openmq verify`,
// POST /v1/verifyCommit) to skip what the queue already ran on that very tree.
import { repoKey, type RepoRef } from '../../platform/repo-ref.js';
import { repositoryNotFound } from '../../platform/errors.js';
import type { Entry, TestRun } from '../domain/model.js';
import type { MergeQueueRepositories } from '../store/store.js';
import { latestByContext } from '../domain/required-statuses.js';

export interface CommitVerification {
  sha: string;
  /** The commit's exact tree passed the queue's required statuses. */
  tested: boolean;
  /** Why, in one sentence. */
  detail: string;
  /** The queue's target branch and the pull request whose merge made the commit; null when the queue did not make it. */
  targetBranch: string | null;
  prNumber: number | null;
  /** The run that tested the tree (or, for a commit it did not test exactly, the run that verified its merge). */
  testRun: { id: string; sha: string | null; tree: string | null; requiredStatuses: { context: string; state: string | null }[] } | null;
}

export class CommitVerificationService {
  constructor(private readonly deps: { store: Pick<MergeQueueRepositories, 'queues' | 'entries' | 'testRuns' | 'commitStatuses'> }) {}

  async verify(orgId: string, repo: RepoRef, sha: string): Promise<CommitVerification> {
    const { store } = this.deps;
    const queues = await store.queues.listRefs(orgId, repo);
    if (queues.length === 0) throw repositoryNotFound(repo, `no merge queue for repository ${repo.host}/${repo.owner}/${repo.name}`);
    const entry = await store.entries.findMergedAs(
      queues.map((q) => q.id),
      sha,
    );
    if (!entry) {
      return {
        sha,
        tested: false,
        detail: "the merge queue did not make this commit: it was pushed outside the queue, or is not on a queue's target branch",
        targetBranch: null,
        prNumber: null,
        testRun: null,
      };
    }
    const branch = queues.find((q) => q.id === entry.queueId)?.branch ?? null;
    const run = entry.verifiedByTestRun ? await store.testRuns.findById(entry.verifiedByTestRun) : null;
    const testRun = run ? await this.describe(orgId, repo, run) : null;
    return { sha, tested: !!entry.mergedTestedTree && !!run, detail: verificationDetail(entry, run), targetBranch: branch, prNumber: entry.prNumber, testRun };
  }

  private async describe(orgId: string, repo: RepoRef, run: TestRun): Promise<NonNullable<CommitVerification['testRun']>> {
    const statuses = run.sha ? await this.deps.store.commitStatuses.forCommit(orgId, repoKey(repo), run.sha) : [];
    const latest = latestByContext(statuses.map((s) => ({ context: s.context, state: s.state, at: s.createdAt })));
    return {
      id: run.id,
      sha: run.sha,
      tree: run.tree ?? null,
      requiredStatuses: run.requiredStatuses.map((context) => ({ context, state: latest.get(context)?.state ?? null })),
    };
  }
}

function verificationDetail(entry: Entry, run: TestRun | null): string {
  const pr = `#${entry.prNumber}`;
  if (!run) return `the queue merged ${pr} without a test run of its own (a direct merge, or one its record no longer names)`;
  if (entry.mergedTestedTree) {
    return `the queue merged ${pr} and checked that the commit's tree ${entry.mergedTestedTree.slice(0, 12)} is the tree test run ${run.id} tested and passed`;
  }
  if (entry.mergedTestedTree === undefined) return `the queue merged ${pr} before it recorded tested trees; test run ${run.id} verified the merge`;
  if (run.entryIds.at(-1) !== entry.id) {
    return `the queue merged ${pr} with the pull requests after it in test run ${run.id}, which tested the tree after the last of them, not this commit's`;
  }
  return `the queue merged ${pr} after test run ${run.id} passed, without checking that the merge produced the tested tree (parallel mode, or a merge the run did not cover exactly)`;
}
