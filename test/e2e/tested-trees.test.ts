// "Was this commit's tree tested?" end to end on a real git repository (issue 26 §3): after the
// queue merges, verifyCommit answers for each commit of main whether the queue checked that its
// exact tree is the tree a passing test run tested, by which run and with which required statuses
// — the last commit of a batch merge yes, the commits before it no, a push outside the queue no —
// and a run built from the same inputs as an earlier passing one is not run again.
import { expect } from 'chai';
import { Harness, ref, repo } from './engine-support.js';
import { pushToBranch, resolve, treeOf } from '../../scripts/lib/git-fixtures.js';
import { compileValidator } from '../../api/validation/validator.js';
import { VerifyCommitResponse } from '../../api/merge-queue/schemas/test-run-schemas.js';
import type { CommitVerification } from '../../shared/merge-queue/services/commit-verification-service.js';

const validVerification = compileValidator(VerifyCommitResponse);

describe('tested trees (end to end)', function () {
  this.timeout(120_000);
  let h: Harness;

  beforeEach(async () => {
    h = await Harness.start();
    await h.configure({});
  });
  afterEach(async () => {
    await h.close();
  });

  async function verify(sha: string): Promise<CommitVerification> {
    const res = await h.svc.post<CommitVerification>('/verifyCommit', { repo, sha });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    // The answer has the shape the service's OpenAPI document gives it (the same schema).
    validVerification(res.body);
    return res.body;
  }

  it('a pull request merged alone: its commit on main has the tree its run tested and passed', async () => {
    h.runCi(() => 'success');
    await h.pr(1);
    await h.submit(1);
    const [pr] = await h.finals([1]);
    expect(pr!.state, JSON.stringify(pr!.timeline)).to.equal('merged');
    const head = await resolve(h.fx, 'main');
    const v = await verify(head);
    const runId = Harness.runIds(pr!).at(-1)!;
    expect(v).to.deep.include({ sha: head, tested: true, targetBranch: 'main', prNumber: 1 });
    expect(v.detail).to.match(/^the queue merged #1 and checked that the commit's tree [0-9a-f]{12} is the tree test run .+ tested and passed$/);
    expect(v.testRun).to.deep.include({ id: runId, requiredStatuses: [{ context: 'ci/test', state: 'success' }] });
    // The tree is the commit's, as git sees it.
    expect(v.testRun!.tree).to.equal(await treeOf(h.fx, head));
  });

  it('a batch merged as two commits: the last has the tested tree, the one before it does not', async () => {
    await h.configure({ batch: true, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 1 });
    h.runCi(() => 'success');
    await h.pr(1);
    await h.pr(2);
    await h.submit(1);
    await h.submit(2);
    const finals = await h.finals([1, 2]);
    expect(finals.map((p) => p.state)).to.deep.equal(['merged', 'merged']);
    const last = await resolve(h.fx, 'main');
    const first = await resolve(h.fx, `${last}^`);
    expect(await verify(last)).to.deep.include({ tested: true, prNumber: 2 });
    const before = await verify(first);
    expect(before).to.deep.include({ tested: false, prNumber: 1 });
    expect(before.detail).to.match(
      /^the queue merged #1 with the pull requests after it in test run .+, which tested the tree after the last of them, not this commit's$/,
    );
  });

  /**
   * #2 passes on top of #1, which CI holds; then someone cancels #2 and queues it again, unchanged,
   * behind the same #1. Answers #2 once it passed again, the run that first passed it, and the
   * function that lets #1's run finish.
   */
  async function requeueBehindTheSame(settings: Record<string, unknown>) {
    await h.configure({ concurrency: 2, ...settings });
    let releaseFirst = false;
    const ci = h.runCi((_files, info) => (info.branch.includes('/pr-1/') && !releaseFirst ? null : 'success'));
    await h.pr(1);
    await h.pr(2);
    await h.submit(1);
    await h.submit(2);
    const firstRun = Harness.runIds(await h.untilState(2, ['tests_passed'])).at(-1)!;
    expect((await h.svc.post('/cancelPullRequest', { ...ref, pr: { number: 2 } })).status).to.equal(200);
    await h.untilState(2, ['cancelled']);
    await h.submit(2);
    const again = await h.untilState(2, ['tests_passed']);
    return {
      ci,
      firstRun,
      passedDetail: again.timeline.find((t) => t.reason === 'test_run_passed')?.detail,
      release: () => (releaseFirst = true),
    };
  }

  it('a pull request re-queued unchanged behind the same pull request is not tested again: the earlier pass is reused', async () => {
    const { ci, firstRun, passedDetail, release } = await requeueBehindTheSame({});
    expect(passedDetail).to.match(
      new RegExp(
        `^the test run passed, not run: test run ${firstRun} already passed on the same base and pull request heads \\(tree [0-9a-f]{12}\\), with the same required statuses$`,
      ),
    );
    release();
    expect((await h.finals([1, 2])).map((p) => p.state)).to.deep.equal(['merged', 'merged']);
    // CI saw #2's branch once; the merge still checked the tree the first run tested.
    expect(ci.runs.filter((r) => r.branch.includes('/pr-2/'))).to.have.length(1);
    expect(await verify(await resolve(h.fx, 'main'))).to.deep.include({ tested: true, prNumber: 2 });
    const cost = await h.svc.post<{ testRunsStarted: number; testRunsReused: number }>('/getQueueCostReport', ref);
    expect(cost.body).to.deep.include({ testRunsStarted: 2, testRunsReused: 1 });
  });

  it('with reuseTestedTrees off, the re-queued pull request is tested again', async () => {
    const { ci, passedDetail, release } = await requeueBehindTheSame({ reuseTestedTrees: false });
    expect(passedDetail).to.equal('the test run passed');
    release();
    await h.finals([1, 2]);
    expect(ci.runs.filter((r) => r.branch.includes('/pr-2/'))).to.have.length(2);
  });

  it('a commit pushed outside the queue was not tested by it; an unknown repository is 404', async () => {
    const pushed = await pushToBranch(h.fx, 'main', [{ message: 'hotfix', files: { 'hotfix.txt': 'x\n' } }]);
    const v = await verify(pushed);
    expect(v).to.deep.equal({
      sha: pushed,
      tested: false,
      detail: "the merge queue did not make this commit: it was pushed outside the queue, or is not on a queue's target branch",
      targetBranch: null,
      prNumber: null,
      testRun: null,
    });
    const missing = await h.svc.post('/verifyCommit', { repo: { ...repo, name: 'nothing-here' }, sha: pushed });
    expect(missing.status).to.equal(404);
    expect((await h.svc.post('/verifyCommit', { ...ref, sha: pushed })).status).to.equal(400);
  });
});
