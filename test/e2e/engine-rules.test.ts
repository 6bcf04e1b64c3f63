// More engine rules end to end: conflicts with the predicted base, where required statuses come
// from, direct merge, and cancel/restart of a pull request whose run is testing.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createPullRequest, createRepo, DEFAULT_REPO, listCommits, pushToBranch, readTree, type FixtureRepo } from '../../scripts/lib/git-fixtures.js';
import { startFakeCi, type FakeCi, type Verdict } from '../helpers/fake-ci.js';
import { waitFor } from '../../scripts/lib/wait.js';
import { expectOpenApiResponse } from '../helpers/openapi.js';
import { planExclusively } from '../helpers/planning.js';

const repo = DEFAULT_REPO;
const ref = { repo, targetBranch: 'main' };

interface Timeline {
  state: string;
  reason: string;
  detail?: string;
  testRunId?: string;
}
interface Submitted {
  state: string;
  restartCount: number;
  verifiedByTestRun: string | null;
  timeline: Timeline[];
}
interface Details {
  requiredStatuses: string[];
  requiredStatusesSource?: string;
  testBranchSha: string;
  status: string;
}

describe('merge engine rules (end to end)', function () {
  this.timeout(60_000);
  let svc: TestService;
  let fx: FixtureRepo & { initialSha: string };
  let ci: FakeCi | null = null;

  beforeEach(async () => {
    svc = await startTestService({ startWorkers: true });
    fx = await createRepo(svc.gitRoot, { repo, files: { 'README.md': '# widgets\n', 'shared.txt': 'base\n' } });
    expect((await svc.post('/createQueue', ref)).status).to.equal(200);
  });
  afterEach(async () => {
    await ci?.stop();
    ci = null;
    await svc.close();
  });

  const runCi = (decide: (files: Record<string, string>) => Verdict, context = 'ci/test') => {
    ci = startFakeCi({ fx, repo, context, decide, postStatus: async (body) => (await svc.post('/setCommitStatus', body)).status });
  };
  const submit = async (n: number) => expect((await svc.post('/submitPullRequest', { ...ref, pr: { number: n } })).status).to.equal(200);
  const get = async (n: number) => (await svc.post<Submitted>('/getSubmittedPullRequest', { ...ref, pr: { number: n }, includeTimeline: true })).body;
  const untilState = (n: number, states: string[]) =>
    waitFor(`PR #${n} in ${states.join('/')}`, async () => {
      const s = await get(n);
      return states.includes(s.state) ? s : undefined;
    });
  const runOf = (s: Submitted) => s.timeline.find((t) => t.state === 'testing')?.testRunId;
  const details = async (runId: string) => {
    const res = await svc.post<Details>('/getMergeQueueTestingDetails', { ...ref, testRunId: runId });
    expect(res.status).to.equal(200);
    expectOpenApiResponse('/getMergeQueueTestingDetails', res.body);
    return res.body;
  };

  it('a pull request that conflicts with its predicted base fails with start_test_run_merge_conflict; the others go on', async () => {
    await svc.post('/updateQueue', { ...ref, requiredStatuses: ['ci/test'], concurrency: 3 });
    let release = false;
    runCi(() => (release ? 'success' : null));
    // #1 and #2 both rewrite shared.txt: each merges cleanly onto main alone (both are ready),
    // but #2 cannot be merged on top of #1.
    await createPullRequest(fx, { number: 1, commits: [{ message: 'One', files: { 'shared.txt': 'one\n' } }] });
    await createPullRequest(fx, { number: 2, commits: [{ message: 'Two', files: { 'shared.txt': 'two\n' } }] });
    await createPullRequest(fx, { number: 3, commits: [{ message: 'Three', files: { 'three.txt': '3\n' } }] });
    await submit(1);
    await untilState(1, ['testing']);
    await submit(2);
    await submit(3);
    const two = await untilState(2, ['failed']);
    expect(two.timeline[0]?.reason).to.equal('start_test_run_merge_conflict');
    release = true;
    await untilState(1, ['merged']);
    await untilState(3, ['merged']);
    const tree = await readTree(fx, 'main');
    expect(tree['shared.txt']).to.equal('one\n');
    expect(tree['three.txt']).to.equal('3\n');
  });

  it('takes required statuses from .trunk/trunk.yaml at the target head when the queue has none (source trunk_config)', async () => {
    await pushToBranch(fx, 'main', [
      { message: 'Configure', files: { '.trunk/trunk.yaml': 'version: 0.1\nmerge:\n  required_statuses:\n    - build\n    - lint\n' } },
    ]);
    let lintOk = false;
    ci = startFakeCi({
      fx,
      repo,
      context: 'build',
      decide: () => 'success',
      postStatus: async (body) => {
        const first = (await svc.post('/setCommitStatus', body)).status;
        if (!lintOk) return first;
        return (await svc.post('/setCommitStatus', { ...body, context: 'lint' })).status;
      },
    });
    await createPullRequest(fx, { number: 1, commits: [{ message: 'One', files: { 'one.txt': '1\n' } }] });
    await submit(1);
    const testing = await untilState(1, ['testing']);
    const d = await waitFor('the run to be built', async () => {
      const x = await details(runOf(testing)!);
      return x.testBranchSha ? x : undefined;
    });
    expect(d.requiredStatuses).to.deep.equal(['build', 'lint']);
    expect(d.requiredStatusesSource).to.equal('trunk_config');
    // Only "build" reported: the run keeps waiting for "lint".
    await waitFor('build reported', async () => (ci?.runs.length ?? 0) > 0);
    expect((await get(1)).state).to.equal('testing');
    await svc.post('/setCommitStatus', { repo, sha: d.testBranchSha, context: 'lint', state: 'success' });
    lintOk = true;
    await untilState(1, ['merged']);
  });

  it('fails a pull request with start_test_run_no_required_statuses when no source names any', async () => {
    await createPullRequest(fx, { number: 1, commits: [{ message: 'One', files: { 'one.txt': '1\n' } }] });
    await submit(1);
    const failed = await untilState(1, ['failed']);
    expect(failed.timeline[0]?.reason).to.equal('start_test_run_no_required_statuses');
  });

  it('fails a pull request with start_test_run_config_parsing_failure when .trunk/trunk.yaml cannot be used', async () => {
    await pushToBranch(fx, 'main', [{ message: 'Break config', files: { '.trunk/trunk.yaml': 'merge: [unclosed\n' } }]);
    await createPullRequest(fx, { number: 1, commits: [{ message: 'One', files: { 'one.txt': '1\n' } }] });
    await submit(1);
    const failed = await untilState(1, ['failed']);
    expect(failed.timeline[0]?.reason).to.equal('start_test_run_config_parsing_failure');
    expect(failed.timeline[0]?.detail).to.match(/trunk\.yaml/);
  });

  it('directMergeMode always: a ready pull request on the tip with passing statuses merges without a test run', async () => {
    await svc.post('/updateQueue', { ...ref, requiredStatuses: ['ci/test'], directMergeMode: 'always' });
    const pr = await createPullRequest(fx, { number: 1, commits: [{ message: 'One', files: { 'one.txt': '1\n' } }] });
    await svc.post('/setCommitStatus', { repo, sha: pr.headSha, context: 'ci/test', state: 'success' });
    await submit(1);
    const merged = await untilState(1, ['merged']);
    expect(merged.timeline[0]?.reason).to.equal('merge_graph_direct_merge');
    expect(merged.timeline.some((t) => t.state === 'testing')).to.equal(false);
    expect((await readTree(fx, 'main'))['one.txt']).to.equal('1\n');
    // Not on the tip any more: the next one goes through a test run.
    await pushToBranch(fx, 'main', [{ message: 'Elsewhere', files: { 'x.txt': 'x\n' } }]);
    const stale = await createPullRequest(fx, { number: 2, base: fx.initialSha, commits: [{ message: 'Two', files: { 'two.txt': '2\n' } }] });
    await svc.post('/setCommitStatus', { repo, sha: stale.headSha, context: 'ci/test', state: 'success' });
    await submit(2);
    await untilState(2, ['testing']);
  });

  it('a merge the provider completed before a crash is recorded, never merged again', async () => {
    await svc.post('/updateQueue', { ...ref, requiredStatuses: ['ci/test'] });
    let answer = false;
    runCi(() => (answer ? 'success' : null));
    await createPullRequest(fx, { number: 1, commits: [{ message: 'One', files: { 'one.txt': '1\n' } }] });
    await submit(1);
    const testing = await untilState(1, ['testing']);
    expect((await svc.post('/updateQueue', { ...ref, state: 'paused' })).status).to.equal(200);
    answer = true;
    await untilState(1, ['tests_passed']);
    // What the applier does first when it merges; the process "dies" before the entry is updated.
    const queue = (await svc.ctx.mergeQueue.store.queues.find(svc.orgId, repo, 'main'))!;
    const provider = (await svc.ctx.providers.providerFor(repo))!;
    const entry = (await svc.ctx.mergeQueue.store.entries.findActiveByPr(queue.id, 1))!;
    const head = (await provider.branchHead(repo, 'main'))!;
    const merged = await provider.mergePullRequests(repo, {
      targetBranch: 'main',
      expectedHeadSha: head,
      method: queue.mergeMethod,
      pullRequests: [{ number: 1, headSha: entry.prSha, title: entry.prTitle, author: entry.prAuthor }],
    });
    expect(merged.ok).to.equal(true);
    expect((await svc.post('/updateQueue', { ...ref, state: 'running' })).status).to.equal(200);
    await planExclusively(svc, queue.id);
    const done = await untilState(1, ['merged']);
    expect(done.timeline[0]?.detail).to.match(/before the service restarted/);
    expect(done.verifiedByTestRun).to.equal(runOf(testing));
    const subjects = (await listCommits(fx, 'main', { firstParent: true })).map((c) => c.subject);
    expect(subjects.filter((x) => x.endsWith('(#1)'))).to.have.length(1);
  });

  it('cancelling a pull request that is testing cancels its run and restarts the runs built on it', async () => {
    await svc.post('/updateQueue', { ...ref, requiredStatuses: ['ci/test'], concurrency: 2 });
    let release = false;
    runCi(() => (release ? 'success' : null));
    await createPullRequest(fx, { number: 1, commits: [{ message: 'One', files: { 'one.txt': '1\n' } }] });
    await createPullRequest(fx, { number: 2, commits: [{ message: 'Two', files: { 'two.txt': '2\n' } }] });
    await submit(1);
    await untilState(1, ['testing']);
    await submit(2);
    const twoTesting = await untilState(2, ['testing']);
    const oneRun = runOf(await get(1))!;
    expect((await svc.post('/cancelPullRequest', { ...ref, pr: { number: 1 } })).status).to.equal(200);
    await waitFor('run of #1 cancelled', async () => (await details(oneRun)).status === 'cancelled');
    const two = await waitFor('#2 restarted without #1', async () => {
      const s = await get(2);
      return s.timeline.some((t) => t.reason === 'prerequisite_merge_item_cancelled') ? s : undefined;
    });
    expect(two.restartCount).to.be.greaterThan(0);
    expect(runOf(two)).not.to.equal(runOf(twoTesting));
    release = true;
    await untilState(2, ['merged']);
    const tree = await readTree(fx, 'main');
    expect(tree).not.to.have.property('one.txt');
    expect(tree['two.txt']).to.equal('2\n');
  });

  it('restartTestsOnPullRequest on a testing pull request cancels its run and tests it again in its place', async () => {
    await svc.post('/updateQueue', { ...ref, requiredStatuses: ['ci/test'] });
    let release = false;
    runCi(() => (release ? 'success' : null));
    await createPullRequest(fx, { number: 1, commits: [{ message: 'One', files: { 'one.txt': '1\n' } }] });
    await submit(1);
    const first = await untilState(1, ['testing']);
    expect((await svc.post('/restartTestsOnPullRequest', { ...ref, pr: { number: 1 } })).status).to.equal(200);
    const again = await waitFor('a new run', async () => {
      const s = await get(1);
      const runs = s.timeline.filter((t) => t.state === 'testing').map((t) => t.testRunId);
      return s.state === 'testing' && runs.length >= 2 ? s : undefined;
    });
    expect(again.timeline.map((t) => t.reason)).to.include('tests_restarted_by_api_request');
    expect((await details(runOf(first)!)).status).to.equal('cancelled');
    release = true;
    const merged = await untilState(1, ['merged']);
    expect(merged.verifiedByTestRun).to.equal(runOf(again));
    expect((await listCommits(fx, 'main', { limit: 1 }))[0]?.subject).to.equal('One (#1)');
  });
});
