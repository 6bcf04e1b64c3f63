// Batching and bisection end to end (issue 5; merge-queue-behaviour §1.9, §1.10, Part 2 §2.2) on
// a real git repository, with a fake CI that fails every test branch holding a file named BAD.
import { expect } from 'chai';
import { waitFor } from '../../scripts/lib/wait.js';
import { readTree } from '../../scripts/lib/git-fixtures.js';
import { parseExposition, sampleValue } from '../helpers/prometheus-text.js';
import { Harness, repo } from './engine-support.js';
import { entryDocuments, storedEntries } from '../helpers/stored-documents.js';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

describe('merge engine, batching and bisection (end to end)', function () {
  this.timeout(120_000);
  let h: Harness;

  beforeEach(async () => {
    h = await Harness.start();
  });
  afterEach(async () => {
    await h.close();
  });

  // CI runs prefix bisection needs for a batch of b with one culprit: the batch itself, one probe
  // per halving of the failing prefix until it is one entry long (⌈log2 b⌉ levels; without
  // skipping, each level also runs the second half, whose outcome is implied: 2 per level), and
  // one run of the innocents after the culprit that no passing prefix proved, and — the culprit
  // being blamed on top of #1 — one run of the interaction check, which tests it alone (it fails
  // alone too: its own failure). b = 4: 1 + 2 + 1 + 1 = 5 with bisection_skip_redundant_tests,
  // 1 + 4 + 1 + 1 = 7 without.
  const cases = [
    { optimizationMode: 'bisection_skip_redundant_tests', bound: 1 + 2 + 1 + 1 },
    { optimizationMode: 'off', bound: 1 + 2 * 2 + 1 + 1 },
  ] as const;
  for (const { optimizationMode, bound } of cases) {
    it(`a batch of 4 with one bad pull request: exactly it fails, three merge, at most ${bound} CI runs (optimizationMode ${optimizationMode})`, async () => {
      // A long max wait: the batch starts only once it holds its target size of 4.
      await h.configure({ batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 60, concurrency: 2, bisectionConcurrency: 2, optimizationMode });
      const ci = h.runCi();
      for (let n = 1; n <= 4; n++) await h.pr(n, n === 2 ? { BAD: 'breaks the build\n' } : {});
      for (let n = 1; n <= 4; n++) await h.submit(n);

      const final = await h.finals([1, 2, 3, 4]);
      expect(final.map((s) => s.state)).to.deep.equal(['merged', 'failed', 'merged', 'merged']);
      expect(final[1]!.timeline[0]?.reason).to.equal('test_run_required_status_failed');
      expect(await h.mergedFiles()).to.deep.equal(['f1.txt', 'f3.txt', 'f4.txt']);
      expect(await h.mainSubjects(), 'each pull request merges as its own commit, in order').to.deep.equal(['Change 1 (#1)', 'Change 3 (#3)', 'Change 4 (#4)']);

      // The first run tested the whole batch, as one run on one branch.
      const batchRun = Harness.runIds(final[0]!)[0]!;
      for (const s of final) expect(Harness.runIds(s)[0]).to.equal(batchRun);
      const batch = await h.details(batchRun);
      expect(batch.testBranch).to.equal(`trunk-merge/pr-1-2-3-4/${batchRun}`);
      expect(batchRun).to.match(new RegExp(`^${UUID}$`));
      expect(batch.testedPullRequests.map((p) => [p.prNumber, p.title])).to.deep.equal([1, 2, 3, 4].map((n) => [n, `Change ${n}`]));
      expect(batch.status).to.equal('failed');
      expect(batch.impactedTargets, 'no targets were uploaded').to.equal(undefined);
      expect(batch.impactedTargetsForTestedPrs).to.equal(undefined);

      // Every later run was a bisection run: its id ends in -bisection, and so does its branch.
      const later = [...new Set(final.flatMap((s) => Harness.runIds(s)))].filter((id) => id !== batchRun);
      expect(later.length).to.be.greaterThan(0);
      for (const id of later) {
        expect(id).to.match(new RegExp(`^${UUID}-bisection$`));
        const d = await h.details(id);
        expect(d.testBranch.endsWith(`/${id}`)).to.equal(true);
      }
      for (const s of final.filter((x) => x.state === 'merged')) expect(later).to.include(s.verifiedByTestRun);

      // CI cost: every run CI answered, bisection ones included.
      const answered = ci.runs.map((r) => r.branch);
      expect(answered[0]).to.equal(batch.testBranch);
      expect(answered.length, `CI runs: ${answered.join(', ')}`).to.be.at.most(bound);
      expect(answered.slice(1).every((b) => b.endsWith('-bisection'))).to.equal(true);
      // With skipping the count is exactly the bound: [1,2,3,4] ✗, [1,2] ✗, [1] ✓ → #2 is blamed
      // on top of #1; then, side by side, [3,4] on top of #1 ✓ and #2 alone on the batch's base ✗
      // (the interaction check: its own failure).
      if (optimizationMode === 'bisection_skip_redundant_tests') {
        const names = answered.map((b) => b.split('/')[1]);
        expect(names.slice(0, 3)).to.deep.equal(['pr-1-2-3-4', 'pr-1-2', 'pr-1']);
        expect(names.slice(3).sort()).to.deep.equal(['pr-2', 'pr-3-4']);
      }
      await waitFor('test branches deleted', async () => (await h.testBranches()).length === 0);
    });
  }

  it('entries in a bisection report queue_type bisection in the merge-queue metrics', async () => {
    await h.configure({
      batch: true,
      batchingMinSize: 4,
      batchingMaxWaitTimeMinutes: 60,
      concurrency: 1,
      bisectionConcurrency: 1,
      optimizationMode: 'bisection_skip_redundant_tests',
    });
    let release = false;
    // The batch fails at once; bisection runs wait until the metrics were read.
    h.runCi((files, info) => (info.branch.endsWith('-bisection') && !release ? null : 'BAD' in files ? 'failure' : 'success'));
    for (let n = 1; n <= 4; n++) await h.pr(n, n === 4 ? { BAD: 'breaks the build\n' } : {});
    for (let n = 1; n <= 4; n++) await h.submit(n);
    const probe = await waitFor('the first bisection run', async () => {
      const s = await h.get(1);
      const id = s.state === 'testing' ? s.timeline.find((t) => t.state === 'testing')?.testRunId : undefined;
      return id?.endsWith('-bisection') ? id : undefined;
    });
    expect((await h.details(probe)).testedPullRequests.map((p) => p.prNumber)).to.deep.equal([1, 2]);

    const res = await h.svc.raw('GET', `/v1/getMergeQueueMetrics?repo=${repo.owner}/${repo.name}&repoHost=${repo.host}`, {
      headers: { 'x-api-token': h.svc.token },
    });
    expect(res.status).to.equal(200);
    const metrics = parseExposition(String(res.body));
    const labels = (queueType: string) => ({ repo: `${repo.owner}/${repo.name}`, branch: 'main', queue_type: queueType });
    expect(sampleValue(metrics, 'mq_depth_current', labels('bisection'))).to.equal(4);
    expect(sampleValue(metrics, 'mq_depth_current', labels('main'))).to.equal(0);
    expect(sampleValue(metrics, 'mq_testing_slots_active', labels('bisection'))).to.equal(2);

    release = true;
    const final = await h.finals([1, 2, 3, 4]);
    expect(final.map((s) => s.state)).to.deep.equal(['merged', 'merged', 'merged', 'failed']);
  });

  it('a noBatch pull request is tested alone in its place, restarts nothing, and the others still batch', async () => {
    await h.configure({ batch: true, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 60, concurrency: 3 });
    let release = false;
    h.runCi(() => (release ? 'success' : null));
    for (let n = 1; n <= 5; n++) await h.pr(n);
    await h.submit(1);
    await h.submit(2);
    const first = await h.currentRun(1);
    expect(await h.currentRun(2)).to.equal(first);
    await h.submit(3, { noBatch: true });
    const third = await h.currentRun(3);
    await h.submit(4);
    await h.submit(5);
    const fourth = await h.currentRun(4);
    expect(await h.currentRun(5)).to.equal(fourth);

    const runs = await Promise.all([first, third, fourth].map((id) => h.builtDetails(id)));
    expect(runs.map((d) => d.testBranch)).to.deep.equal([`trunk-merge/pr-1-2/${first}`, `trunk-merge/pr-3/${third}`, `trunk-merge/pr-4-5/${fourth}`]);
    expect(runs.map((d) => d.testedPullRequests.map((p) => p.prNumber))).to.deep.equal([[1, 2], [3], [4, 5]]);
    // Five pull requests under test at once with concurrency 3: a batch takes one slot.
    expect(runs.map((d) => d.status)).to.deep.equal(['in_progress', 'in_progress', 'in_progress']);
    expect((await h.get(3)).noBatch).to.equal(true);
    // Tested in its place: #3's branch holds #1 and #2 below it (single mode: no dependentPrs).
    expect(runs[1]!.dependentPrs).to.deep.equal([]);
    expect(Object.keys(await readTree(h.fx, runs[1]!.testBranchSha)).sort()).to.deep.equal(['README.md', 'f1.txt', 'f2.txt', 'f3.txt']);
    // Submitting it restarted nothing: the batch ahead still runs the run it started with.
    for (const n of [1, 2]) expect((await h.get(n)).restartCount).to.equal(0);

    release = true;
    const final = await h.finals([1, 2, 3, 4, 5]);
    expect(final.map((s) => s.state)).to.deep.equal(['merged', 'merged', 'merged', 'merged', 'merged']);
    expect(final.map((s) => s.verifiedByTestRun)).to.deep.equal([first, first, third, fourth, fourth]);
    expect(final.map((s) => s.restartCount)).to.deep.equal([0, 0, 0, 0, 0]);
    expect(await h.mainSubjects()).to.deep.equal([1, 2, 3, 4, 5].map((n) => `Change ${n} (#${n})`));
  });

  it('a partial batch waits for batchingMaxWaitTimeMinutes, measured from when its oldest entry became pending, then starts', async () => {
    // One minute of real waiting would be too slow for the suite: the test checks that the wait
    // is scheduled (the planner's wake-up, as a delayed job), then moves the stored timestamps
    // the wait is computed from (stateChangedAt of the pending entries) a minute into the past
    // and asks for a planning pass, which is exactly what the wake-up job does when it fires.
    await h.configure({ batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 1, concurrency: 1 });
    h.runCi(() => 'success');
    await h.pr(1);
    await h.pr(2);
    await h.submit(1);
    await h.submit(2);
    await h.untilState(1, ['pending']);
    await h.untilState(2, ['pending']);

    const summary = await h.planNow();
    expect(summary.applied, 'a batch of 2 with a target of 4 does not start yet').to.equal(0);
    const entries = await storedEntries(h.svc.ctx.db, { queueId: h.queueId });
    const oldest = Math.min(...entries.map((e) => e.stateChangedAt.getTime()));
    expect(summary.wakeAt?.getTime()).to.equal(oldest + 60_000);
    const wake = await h.svc.ctx.jobs.queue('wake').getJob(`wake-${h.queueId}-${oldest + 60_000}`);
    expect(wake, 'a delayed wake-up is scheduled for when the wait is over').to.not.equal(undefined);
    expect(await h.testBranches()).to.deep.equal([]);
    expect((await h.get(1)).state).to.equal('pending');

    await entryDocuments(h.svc.ctx.db).updateMany({ queueId: h.queueId }, { $set: { stateChangedAt: new Date(Date.now() - 61_000) } });
    await h.svc.ctx.mergeQueue.scheduler.requestPlan(h.queueId, 'test: the batch max wait is over');
    const run = await h.currentRun(1);
    expect(await h.currentRun(2)).to.equal(run);
    expect((await h.details(run)).testBranch).to.equal(`trunk-merge/pr-1-2/${run}`);
    const final = await h.finals([1, 2]);
    expect(final.map((s) => s.state)).to.deep.equal(['merged', 'merged']);
  });

  it('a full batch does not wait: it starts as soon as it reaches its target size', async () => {
    await h.configure({ batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 60, concurrency: 1 });
    h.runCi(() => 'success');
    for (let n = 1; n <= 3; n++) await h.pr(n);
    await h.submit(1);
    await h.submit(2);
    await h.untilState(2, ['pending']);
    expect((await h.planNow()).applied).to.equal(0);
    await h.submit(3);
    const run = await h.currentRun(3);
    expect((await h.details(run)).testedPullRequests.map((p) => p.prNumber)).to.deep.equal([1, 2, 3]);
    const final = await h.finals([1, 2, 3]);
    expect(final.map((s) => s.verifiedByTestRun)).to.deep.equal([run, run, run]);
  });
});
