// The merge engine in single mode, end to end on real git repositories, with CI driven through
// setCommitStatus by a fake CI that tests the files of each trunk-merge branch.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createPullRequest, createRepo, DEFAULT_REPO, listCommits, pushToBranch, readTree, type FixtureRepo } from '../../scripts/lib/git-fixtures.js';
import { startFakeCi, type FakeCi, type Verdict } from '../helpers/fake-ci.js';
import { waitFor } from '../../scripts/lib/wait.js';
import { expectOpenApiResponse } from '../helpers/openapi.js';
import { testRunDocuments } from '../helpers/stored-documents.js';
import { planExclusively } from '../helpers/planning.js';

const repo = DEFAULT_REPO;
const ref = { repo, targetBranch: 'main' };
const BASE_FILES = { 'README.md': '# widgets\n' };

interface Timeline {
  state: string;
  reason: string;
  detail?: string;
  testRunId?: string;
}
interface Submitted {
  id: string;
  state: string;
  verifiedByTestRun: string | null;
  restartCount: number;
  priorityValue: number;
  timeline: Timeline[];
}

describe('merge engine, single mode (end to end)', function () {
  this.timeout(120_000);
  let svc: TestService;
  let fx: FixtureRepo;
  let ci: FakeCi | null = null;

  beforeEach(async () => {
    svc = await startTestService({ startWorkers: true });
    fx = await createRepo(svc.gitRoot, { repo, files: BASE_FILES });
    expect((await svc.post('/createQueue', ref)).status).to.equal(200);
  });
  afterEach(async () => {
    await ci?.stop();
    ci = null;
    await svc.close();
  });

  async function configure(settings: Record<string, unknown>): Promise<void> {
    const res = await svc.post('/updateQueue', { ...ref, requiredStatuses: ['ci/test'], ...settings });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  }

  function runCi(decide: (files: Record<string, string>, info: { branch: string; seen: number }) => Verdict): FakeCi {
    ci = startFakeCi({ fx, repo, context: 'ci/test', decide, postStatus: async (body) => (await svc.post('/setCommitStatus', body)).status });
    return ci;
  }

  /** Pull request n adds f<n>.txt (and whatever `extra` holds). */
  async function pr(n: number, extra: Record<string, string> = {}): Promise<void> {
    await createPullRequest(fx, {
      number: n,
      commits: [{ message: `Change ${n}`, files: { [`f${n}.txt`]: `${n}\n`, ...extra } }],
      metadata: { title: `Change ${n}`, author: `dev${n}` },
    });
  }

  async function submit(n: number, extra: Record<string, unknown> = {}): Promise<void> {
    const res = await svc.post('/submitPullRequest', { ...ref, pr: { number: n }, ...extra });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  }

  async function get(n: number): Promise<Submitted> {
    const res = await svc.post<Submitted>('/getSubmittedPullRequest', { ...ref, pr: { number: n }, includeTimeline: true });
    expect(res.status).to.equal(200);
    return res.body;
  }

  async function untilState(n: number, states: string[], timeoutMs = 30_000): Promise<Submitted> {
    return waitFor(
      `PR #${n} in ${states.join('/')}`,
      async () => {
        const s = await get(n);
        return states.includes(s.state) ? s : undefined;
      },
      { timeoutMs },
    );
  }

  /** Files on main that pull requests added (f<n>.txt), sorted. */
  async function mergedFiles(): Promise<string[]> {
    return Object.keys(await readTree(fx, 'main'))
      .filter((f) => /^f\d+\.txt$/.test(f))
      .sort((a, b) => Number(a.slice(1, -4)) - Number(b.slice(1, -4)));
  }

  it('ten pull requests, concurrency 3, one bad: exactly the other nine merge and main holds exactly their changes', async () => {
    await configure({ concurrency: 3 });
    const bad = 4;
    runCi((files) => ('BAD' in files ? 'failure' : 'success'));
    for (let n = 1; n <= 10; n++) await pr(n, n === bad ? { BAD: 'breaks the build\n' } : {});
    for (let n = 1; n <= 10; n++) await submit(n);

    const final = [];
    for (let n = 1; n <= 10; n++) final.push(await untilState(n, ['merged', 'failed', 'cancelled'], 60_000));
    expect(final.map((s) => s.state)).to.deep.equal(final.map((_, i) => (i + 1 === bad ? 'failed' : 'merged')));
    const failed = final[bad - 1]!;
    expect(failed.timeline[0]?.reason).to.equal('test_run_required_status_failed');
    expect(await mergedFiles()).to.deep.equal([1, 2, 3, 5, 6, 7, 8, 9, 10].map((n) => `f${n}.txt`));
    const tree = await readTree(fx, 'main');
    expect(tree).not.to.have.property('BAD');
    expect(tree['README.md']).to.equal(BASE_FILES['README.md']);
    // Whether anything was stacked on the bad pull request when it failed depends on CI timing;
    // when something was, it restarted without it (planner unit tests cover that path exactly).
    for (const s of final.filter((x) => x.restartCount > 0)) {
      expect(s.timeline.map((t) => t.reason)).to.include('prerequisite_merge_item_failed');
    }
    for (const s of final.filter((x) => x.state === 'merged')) expect(s.verifiedByTestRun).to.be.a('string');
    // One commit per merged pull request, in queue order.
    const subjects = (await listCommits(fx, 'main', { firstParent: true }))
      .map((c) => c.subject)
      .reverse()
      .slice(1);
    expect(subjects).to.deep.equal([1, 2, 3, 5, 6, 7, 8, 9, 10].map((n) => `Change ${n} (#${n})`));
  });

  it('a flaky failure is rescued by pendingFailureDepth 1 with optimistic merging', async () => {
    await configure({ concurrency: 2, pendingFailureDepth: 1, canOptimisticallyMerge: true, state: 'paused' });
    // The first run of PR #1 alone fails (a flake); everything else passes.
    runCi((_files, info) => (info.branch.startsWith('trunk-merge/pr-1/') && info.seen === 1 ? 'failure' : 'success'));
    await pr(1);
    await pr(2);
    await submit(1);
    await submit(2);
    expect((await svc.post('/updateQueue', { ...ref, state: 'running' })).status).to.equal(200);

    const one = await untilState(1, ['merged', 'failed']);
    const two = await untilState(2, ['merged', 'failed']);
    expect([one.state, two.state]).to.deep.equal(['merged', 'merged']);
    expect(one.timeline.some((t) => t.state === 'pending_failure')).to.equal(true);
    // PR #1 was proven by PR #2's run, whose predicted base contained it.
    expect(one.verifiedByTestRun).to.equal(two.verifiedByTestRun);
    expect(await mergedFiles()).to.deep.equal(['f1.txt', 'f2.txt']);
  });

  it('a run that does not conclude in time is cancelled and, with notItsFaultRetries 0, its pull request fails with test_run_timeout', async () => {
    await configure({ testingTimeoutMinutes: 5, notItsFaultRetries: 0 });
    runCi(() => null); // CI never answers.
    await pr(1);
    await submit(1);
    const testing = await untilState(1, ['testing']);
    const runId = testing.timeline.find((t) => t.state === 'testing')?.testRunId;
    expect(runId).to.be.a('string');
    // Bring the deadline forward instead of waiting five minutes; the real timeout job acts on it.
    const deadline = new Date(Date.now() + 300);
    await testRunDocuments(svc.ctx.db).updateOne({ _id: runId! }, { $set: { deadlineAt: deadline } });
    await svc.ctx.mergeQueue.scheduler.scheduleTimeout((await svc.ctx.mergeQueue.store.queues.find(svc.orgId, repo, 'main'))!.id, runId!, deadline);

    const failed = await untilState(1, ['failed']);
    expect(failed.timeline[0]?.reason).to.equal('test_run_timeout');
    const judged = await svc.post<{ verdict?: { kind: string; rule: string } }>('/getSubmittedPullRequest', { ...ref, pr: { number: 1 } });
    expect(judged.body.verdict).to.deep.include({ kind: 'infrastructure', rule: 'timeout' });
    const details = await svc.post<{ status: string }>('/getMergeQueueTestingDetails', { ...ref, testRunId: runId });
    expectOpenApiResponse('/getMergeQueueTestingDetails', details.body);
    expect(details.body.status).to.equal('cancelled');
  });

  it('an urgent pull request preempts a running lower-priority one, which restarts behind it', async () => {
    await configure({ concurrency: 1 });
    let release = false;
    runCi((files) => (release || 'f2.txt' in files ? 'success' : null)); // PR #1 waits until released.
    await pr(1);
    await pr(2);
    await submit(1);
    await untilState(1, ['testing']);
    await submit(2, { priority: 'urgent' });

    const one = await waitFor('PR #1 interrupted', async () => {
      const s = await get(1);
      return s.timeline.some((t) => t.reason === 'skip_the_line_interrupted') ? s : undefined;
    });
    expect(one.restartCount).to.be.greaterThan(0);
    const two = await untilState(2, ['merged']);
    expect(two.priorityValue).to.equal(0);
    release = true;
    await untilState(1, ['merged']);
    const subjects = (await listCommits(fx, 'main', { firstParent: true })).map((c) => c.subject);
    expect(subjects.slice(0, 2)).to.deep.equal(['Change 1 (#1)', 'Change 2 (#2)']);
  });

  it('paused: no admission and no merges while running tests finish; resuming merges', async () => {
    await configure({ concurrency: 2 });
    let answer = false;
    runCi(() => (answer ? 'success' : null));
    await pr(1);
    await submit(1);
    await untilState(1, ['testing']);
    expect((await svc.post('/updateQueue', { ...ref, state: 'paused' })).status).to.equal(200);
    await pr(2);
    await submit(2);
    answer = true;
    await untilState(1, ['tests_passed']);
    // A full planning pass while paused merges nothing and admits nothing.
    const summary = await planExclusively(svc, (await svc.ctx.mergeQueue.store.queues.find(svc.orgId, repo, 'main'))!.id);
    expect(summary.applied).to.equal(0);
    expect((await get(1)).state).to.equal('tests_passed');
    expect((await get(2)).state).to.equal('not_ready');
    expect(await mergedFiles()).to.deep.equal([]);

    expect((await svc.post('/updateQueue', { ...ref, state: 'running' })).status).to.equal(200);
    await untilState(1, ['merged']);
    await untilState(2, ['merged']);
    expect(await mergedFiles()).to.deep.equal(['f1.txt', 'f2.txt']);
  });

  it('a push to the target branch outside the queue restarts runs on the new head and never merges an untested combination', async () => {
    await configure({});
    let answer = false;
    runCi(() => (answer ? 'success' : null));
    await pr(1);
    await submit(1);
    const first = await untilState(1, ['testing']);
    const firstRun = first.timeline.find((t) => t.state === 'testing')?.testRunId;
    await pushToBranch(fx, 'main', [{ message: 'Hotfix', files: { 'hotfix.txt': 'fixed\n' } }]);
    await svc.ctx.mergeQueue.services.sync.syncAll();
    const restarted = await waitFor('a restart on the new head', async () => {
      const s = await get(1);
      const runs = s.timeline.filter((t) => t.state === 'testing').map((t) => t.testRunId);
      return s.timeline.some((t) => t.reason === 'manual_push_to_target_branch') && runs.some((r) => r !== firstRun) ? s : undefined;
    });
    expect(restarted.restartCount).to.be.greaterThan(0);
    answer = true;
    const merged = await untilState(1, ['merged']);
    expect(merged.verifiedByTestRun).not.to.equal(firstRun);
    const tree = await readTree(fx, 'main');
    expect(tree).to.have.property('hotfix.txt');
    expect(tree).to.have.property('f1.txt');
  });

  for (const method of ['merge_commit', 'squash', 'rebase'] as const) {
    it(`merges with mergeMethod ${method}`, async () => {
      await configure({ mergeMethod: method, concurrency: 2 });
      runCi(() => 'success');
      await createPullRequest(fx, {
        number: 1,
        commits: [
          { message: 'First step', files: { 'f1.txt': '1\n' } },
          { message: 'Second step', files: { 'g1.txt': 'g\n' } },
        ],
        metadata: { title: 'Two steps', author: 'dev1' },
      });
      await pr(2);
      await submit(1);
      await submit(2);
      await untilState(1, ['merged']);
      await untilState(2, ['merged']);
      const commits = await listCommits(fx, 'main', { firstParent: true });
      const tree = await readTree(fx, 'main');
      expect(Object.keys(tree).sort()).to.deep.equal(['README.md', 'f1.txt', 'f2.txt', 'g1.txt']);
      if (method === 'merge_commit') {
        expect(commits[0]?.parents).to.have.length(2);
        expect(commits[1]?.parents).to.have.length(2);
        expect(commits[1]?.subject).to.match(/^Merge pull request #1/);
      } else if (method === 'squash') {
        expect(commits.slice(0, 2).map((c) => c.subject)).to.deep.equal(['Change 2 (#2)', 'Two steps (#1)']);
        for (const c of commits.slice(0, 2)) expect(c.parents).to.have.length(1);
      } else {
        expect(commits.slice(0, 3).map((c) => c.subject)).to.deep.equal(['Change 2', 'Second step', 'First step']);
        for (const c of commits.slice(0, 3)) expect(c.parents).to.have.length(1);
      }
    });
  }
});
