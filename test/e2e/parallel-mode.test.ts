// Parallel mode end to end (issue 5; merge-queue-behaviour §1.2, §1.17) on a real git
// repository: lanes built from impacted targets uploaded with setImpactedTargets, failures that
// stay in their lane, what getMergeQueueTestingDetails reports for a lane, and switching modes
// with work in flight.
import { expect } from 'chai';
import { readTree } from '../../scripts/lib/git-fixtures.js';
import { expectOpenApiResponse } from '../helpers/openapi.js';
import { Harness, ref } from './engine-support.js';

describe('merge engine, parallel mode (end to end)', function () {
  this.timeout(120_000);
  let h: Harness;

  beforeEach(async () => {
    h = await Harness.start();
  });
  afterEach(async () => {
    await h.close();
  });

  /** Uploads the targets for the PR's head first, so it is ready (and admitted in order) on submission. */
  async function enqueue(n: number, targets: string[] | 'ALL', extra: Record<string, string> = {}): Promise<void> {
    await h.pr(n, extra);
    await h.targets(n, targets);
    await h.submit(n);
  }

  async function files(sha: string): Promise<string[]> {
    return Object.keys(await readTree(h.fx, sha))
      .filter((f) => f !== 'README.md')
      .sort();
  }

  async function queueState(): Promise<{ state: string; mode: string }> {
    const res = await h.svc.post<{ state: string; mode: string }>('/getQueue', ref);
    expect(res.status).to.equal(200);
    expectOpenApiResponse('/getQueue', res.body);
    return { state: res.body.state, mode: res.body.mode };
  }

  it('the four-PR example: A, B and D test on the target head, C on head+A+B; testing details report the lane', async () => {
    await h.configure({ mode: 'parallel', concurrency: 5 });
    let release = false;
    h.runCi(() => (release ? 'success' : null));
    await enqueue(1, ['frontend']); // A
    await enqueue(2, ['backend']); // B
    await enqueue(3, ['frontend', 'backend']); // C
    await enqueue(4, ['docs']); // D
    // E is not in the notes' example: it shows ancestors are transitive (via C it needs A too)
    // and tells the branch's targets apart from the tested pull request's.
    await enqueue(5, ['backend', 'search']);

    const runs = [];
    for (let n = 1; n <= 5; n++) runs.push(await h.builtDetails(await h.currentRun(n)));
    expect(runs.map((d) => d.dependentPrs)).to.deep.equal([[], [], [1, 2], [], [1, 2, 3]]);
    expect(runs.map((d) => d.testedPullRequests.map((p) => p.prNumber))).to.deep.equal([[1], [2], [3], [4], [5]]);
    const trees = await Promise.all(runs.map((d) => files(d.testBranchSha)));
    expect(trees).to.deep.equal([['f1.txt'], ['f2.txt'], ['f1.txt', 'f2.txt', 'f3.txt'], ['f4.txt'], ['f1.txt', 'f2.txt', 'f3.txt', 'f5.txt']]);
    expect(runs.map((d) => d.impactedTargetsForTestedPrs)).to.deep.equal([['frontend'], ['backend'], ['frontend', 'backend'], ['docs'], ['backend', 'search']]);
    // The union over the branch: the dependent pull requests' targets and the tested ones.
    expect(runs.map((d) => d.impactedTargets)).to.deep.equal([['frontend'], ['backend'], ['frontend', 'backend'], ['docs'], ['frontend', 'backend', 'search']]);

    release = true;
    const final = await h.finals([1, 2, 3, 4, 5]);
    expect(final.map((s) => s.state)).to.deep.equal(['merged', 'merged', 'merged', 'merged', 'merged']);
    expect(final.map((s) => s.restartCount)).to.deep.equal([0, 0, 0, 0, 0]);
    expect(await h.mergedFiles()).to.deep.equal(['f1.txt', 'f2.txt', 'f3.txt', 'f4.txt', 'f5.txt']);
  });

  it('two independent lanes: a failure in one restarts only its own lane, the other keeps its runs and merges', async () => {
    await h.configure({ mode: 'parallel', concurrency: 4 });
    // CI answers once every lane is built; lane a (PR #1 is bad) first, lane b only once lane a
    // has settled.
    let releaseA = false;
    let releaseB = false;
    h.runCi((files) => {
      if ('f2.txt' in files || 'f4.txt' in files) return releaseB ? 'success' : null;
      if (!releaseA) return null;
      return 'BAD' in files ? 'failure' : 'success';
    });
    await enqueue(1, ['a'], { BAD: 'breaks lane a\n' });
    await enqueue(2, ['b']);
    await enqueue(3, ['a']);
    await enqueue(4, ['b']);
    const laneB = [await h.currentRun(2), await h.currentRun(4)];
    expect((await h.builtDetails(laneB[1]!)).dependentPrs).to.deep.equal([2]);
    expect((await h.builtDetails(await h.currentRun(3))).dependentPrs).to.deep.equal([1]);
    releaseA = true;

    const one = await h.untilState(1, ['failed']);
    expect(one.timeline[0]?.reason).to.equal('test_run_required_status_failed');
    const three = await h.untilState(3, ['merged']);
    expect(three.restartCount).to.be.greaterThan(0);
    expect(three.timeline.map((t) => t.reason)).to.include('prerequisite_merge_item_failed');
    expect(await h.mergedFiles()).to.deep.equal(['f3.txt']);

    // Lane b did not notice: same runs, no restart, and a planning pass now changes nothing there.
    await h.planNow();
    for (const [i, n] of [2, 4].entries()) {
      const s = await h.get(n);
      expect([s.state, s.restartCount, Harness.runIds(s)]).to.deep.equal(['testing', 0, [laneB[i]]]);
    }

    releaseB = true;
    const final = await h.finals([1, 2, 3, 4]);
    expect(final.map((s) => s.state)).to.deep.equal(['failed', 'merged', 'merged', 'merged']);
    expect([final[1]!.verifiedByTestRun, final[3]!.verifiedByTestRun]).to.deep.equal(laneB);
    expect([final[1]!.restartCount, final[3]!.restartCount]).to.deep.equal([0, 0]);
    expect(await h.mergedFiles()).to.deep.equal(['f2.txt', 'f3.txt', 'f4.txt']);
  });

  it('switching mode with work in flight goes through switching_modes and completes once no run is active', async () => {
    let release = false;
    h.runCi(() => (release ? 'success' : null));
    await h.configure({ concurrency: 2 });
    await h.pr(1);
    await h.submit(1);
    await h.currentRun(1);

    await h.configure({ mode: 'parallel' });
    expect(await queueState()).to.deep.equal({ state: 'switching_modes', mode: 'single' });
    // Submitted during the switch: ready under the new mode (targets uploaded) but not admitted.
    await enqueue(2, ['x']);
    await h.planNow();
    expect((await h.get(2)).state).to.equal('not_ready');
    expect(await queueState()).to.deep.equal({ state: 'switching_modes', mode: 'single' });

    release = true;
    await h.untilState(1, ['merged']);
    const two = await h.currentRun(2);
    expect(await queueState()).to.deep.equal({ state: 'running', mode: 'parallel' });
    const details = await h.builtDetails(two);
    expect([details.dependentPrs, details.impactedTargets, details.impactedTargetsForTestedPrs]).to.deep.equal([[], ['x'], ['x']]);
    await h.untilState(2, ['merged']);
    expect(await h.mergedFiles()).to.deep.equal(['f1.txt', 'f2.txt']);
  });
});
