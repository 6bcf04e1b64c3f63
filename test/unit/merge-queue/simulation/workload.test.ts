// Workloads played against the engine in virtual time, and what the simulator refuses.
import { expect } from 'chai';
import { entry, queue, run } from '../../../../shared/merge-queue/simulation/builders.js';
import { finish, InvariantViolation, SIM_REPO, Simulator } from '../../../../shared/merge-queue/simulation/simulator.js';
import { playWorkload, type Workload } from '../../../../shared/merge-queue/simulation/workload.js';
import { queueEfficiency } from '../../../../shared/merge-queue/simulation/queue-efficiency.js';

function steady(n: number, gapMinutes: number, breaksEvery = 0, flakeRate = 0): Workload {
  return {
    pullRequests: Array.from({ length: n }, (_, i) => ({ arrivesAt: i * gapMinutes, breaks: breaksEvery > 0 && (i + 1) % breaksEvery === 0 })),
    ciMinutes: [10],
    flakeRate,
    seed: 7,
  };
}

describe('simulation: workloads', () => {
  it('a serial queue with one PR per CI duration: every PR merges after exactly one run', async () => {
    const outcome = await playWorkload({ concurrency: 1 }, steady(20, 10));
    const eff = queueEfficiency(outcome);
    expect([eff.merged, eff.failed, eff.unfinished]).to.deep.equal([20, 0, 0]);
    expect(eff.ciRunsPerMerged).to.equal(1);
    expect(eff.ciMinutesPerMerged).to.equal(10);
    expect(eff.timeInQueueMinutes.p50).to.equal(10);
  });

  it('deterministic CI: exactly the breaking PRs fail, whatever the settings', async () => {
    const w = steady(40, 2, 5);
    for (const settings of [
      { concurrency: 4 },
      { concurrency: 3, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 5 },
      { mode: 'single' as const, pendingFailureDepth: 1, canOptimisticallyMerge: true },
    ]) {
      const outcome = await playWorkload(settings, w, { checkDeterminism: true });
      const failed = outcome.entries
        .filter((e) => e.state === 'failed')
        .map((e) => e.id)
        .sort();
      expect(failed, JSON.stringify(settings)).to.deep.equal([...outcome.breaking].sort());
      expect(queueEfficiency(outcome).innocentEjections).to.equal(0);
    }
  });

  it('batching costs fewer CI runs per merged PR than testing one by one', async () => {
    const w = steady(60, 1, 20);
    const single = queueEfficiency(await playWorkload({ concurrency: 4 }, w));
    const batched = queueEfficiency(await playWorkload({ concurrency: 4, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 2 }, w));
    expect(batched.ciRunsPerMerged!).to.be.lessThan(single.ciRunsPerMerged!);
  });

  it('flakes eject innocent PRs; a pending-failure hold with optimistic merge rescues some', async () => {
    const w = steady(80, 3, 0, 0.2);
    const strict = queueEfficiency(await playWorkload({ concurrency: 4 }, w));
    const lenient = queueEfficiency(await playWorkload({ concurrency: 4, pendingFailureDepth: 1, canOptimisticallyMerge: true }, w));
    expect(strict.innocentEjections).to.be.greaterThan(0);
    expect(lenient.innocentEjections).to.be.lessThan(strict.innocentEjections);
  });

  it('a push outside the queue restarts the runs on the new head; everything still merges', async () => {
    const outcome = await playWorkload({ concurrency: 3 }, { ...steady(10, 1), outsidePushes: [5] });
    expect(queueEfficiency(outcome).merged).to.equal(10);
    expect(outcome.runs.some((r) => r.conclusionReason === 'manual_push_to_target_branch')).to.equal(true);
  });

  it('gives the event loop turns as it plays, so the process it runs in keeps answering', async () => {
    // Every await of the in-memory store settles at once: without turns, a play runs as one
    // chain of microtasks and a timer set before it fires only after it ends.
    const order: string[] = [];
    const timer = new Promise<void>((resolve) => setTimeout(() => resolve(order.push('timer') as unknown as void), 0));
    await playWorkload({ concurrency: 4 }, steady(150, 2, 9, 0.05)).then(() => order.push('play'));
    await timer;
    expect(order).to.deep.equal(['timer', 'play']);
  });

  it('a pathological play stops at maxEvents and says so', async () => {
    const outcome = await playWorkload({ concurrency: 1 }, steady(30, 1), { maxEvents: 5 });
    expect(outcome.truncated).to.equal(true);
  });
});

describe('simulation: invariants', () => {
  it('refuses a run beyond the queue concurrency', async () => {
    const sim = new Simulator({ queue: queue({ concurrency: 1 }), entries: [entry(1), entry(2)] });
    await sim.settle();
    let caught: unknown;
    try {
      await sim.store.testRuns.insert(run('extra', [2], [], { queueId: sim.queueId }));
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(InvariantViolation);
  });

  it('refuses to merge a pull request twice', async () => {
    const sim = new Simulator({ queue: queue({ concurrency: 1 }), entries: [entry(1)] });
    const input = { targetBranch: 'main', method: 'merge_commit' as const, pullRequests: [{ number: 1, headSha: 'sha-pr-1', title: 'PR 1', author: 'dev' }] };
    await sim.forge.mergePullRequests(SIM_REPO, { ...input, expectedHeadSha: sim.head });
    let caught: unknown;
    try {
      await sim.forge.mergePullRequests(SIM_REPO, { ...input, expectedHeadSha: sim.head });
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(InvariantViolation);
  });

  describe('a merge must be proved by a run that tested it on everything it depends on', () => {
    /**
     * e1 merges through the engine; then e2 is recorded as merged onto it with a passed run built on
     * the commit before e1 (so the run tested e2 but not e1), or with e1's own run as proof.
     */
    async function mergeE2Claiming(proof: 'run of e2 without e1' | 'run of e1', targets: Record<string, string[]>): Promise<unknown> {
      const sim = new Simulator({ queue: queue({ concurrency: 1 }), entries: [entry(1), entry(2)], targets });
      const before = sim.head;
      await sim.settle();
      const e1Run = await finish(sim, [1], 'succeeded');
      await sim.settle();
      expect(sim.mergeOrder).to.deep.equal(['e1']);
      let proofId = e1Run.id;
      if (proof === 'run of e2 without e1') {
        const built = sim.repo.buildTestBranch({ branch: 'proof/e2', baseSha: before, pullRequests: [{ number: 2, headSha: 'sha-pr-2', title: 'PR 2' }] });
        if (!built.ok) throw new Error('the proof branch did not build');
        proofId = 'proof-e2';
        sim.runs.set(proofId, run(proofId, [2], [], { queueId: sim.queueId, sha: built.sha, status: 'succeeded' }));
      }
      const merged = await sim.forge.mergePullRequests(SIM_REPO, {
        targetBranch: 'main',
        method: 'merge_commit',
        pullRequests: [{ number: 2, headSha: 'sha-pr-2', title: 'PR 2', author: 'dev' }],
        expectedHeadSha: sim.head,
      });
      if (!merged.ok) throw new Error('e2 did not merge at the forge');
      const e2 = (await sim.store.entries.findById('e2'))!;
      try {
        await sim.store.entries.transition(
          'e2',
          { from: [e2.state] },
          { to: 'merged', reason: 'test_run_passed', testRunId: proofId, set: { mergedSha: merged.newHeadSha } },
        );
      } catch (err) {
        return err;
      }
      return null;
    }

    it('refuses a merge whose proof run did not test it', async () => {
      const caught = await mergeE2Claiming('run of e1', {});
      expect(caught).to.be.instanceOf(InvariantViolation);
      expect((caught as Error).message).to.match(/^e2 merged without being tested by /);
    });

    it('refuses a merge onto a change its proof run did not hold, when the two overlap', async () => {
      const caught = await mergeE2Claiming('run of e2 without e1', { e1: ['web'], e2: ['web', 'api'] });
      expect(caught).to.be.instanceOf(InvariantViolation);
      expect((caught as Error).message).to.equal('e2 merged on top of untested dependent change e1');
    });

    it('accepts the same merge when the change it was not tested with touches other targets', async () => {
      expect(await mergeE2Claiming('run of e2 without e1', { e1: ['web'], e2: ['api'] })).to.equal(null);
    });
  });

  describe('stacks', () => {
    /** Lone pull requests and stacks of two to four, arriving a minute apart (a stack all at once), one in `breaksEvery` breaking. */
    function withStacks(seed: number, breaksEvery: number, flakeRate: number): Workload {
      const pullRequests: Workload['pullRequests'] = [];
      for (let unit = 0, minute = 0; pullRequests.length < 40; unit++, minute++) {
        const size = unit % 3 === 0 ? 2 + (unit % 4) : 1;
        const bottom = pullRequests.length;
        for (let k = 0; k < size; k++) {
          const i = bottom + k;
          pullRequests.push({ arrivesAt: minute, breaks: (i + seed) % breaksEvery === 0, ...(k > 0 ? { below: i - 1 } : {}) });
        }
      }
      return { pullRequests, ciMinutes: [8, 10, 14], flakeRate, seed };
    }

    for (const settings of [
      { concurrency: 3 },
      { concurrency: 3, batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 2 },
      { concurrency: 2, pendingFailureDepth: 1, canOptimisticallyMerge: true, optimizationMode: 'bisection_skip_redundant_tests' as const },
    ]) {
      it(`every member lands once, in order, only with the members below it, or leaves with the one that failed (${JSON.stringify(settings)})`, async () => {
        let removed = 0;
        let stacked = 0;
        for (const seed of [1, 2, 3]) {
          const outcome = await playWorkload(settings, withStacks(seed, 7, 0.05), { checkDeterminism: seed === 1 });
          expect(outcome.truncated).to.equal(false);
          const byPr = new Map(outcome.entries.map((e) => [e.prNumber, e]));
          for (const e of outcome.entries) {
            expect(['merged', 'failed', 'cancelled'], `#${e.prNumber} ended`).to.include(e.state);
            const below = e.stack?.belowPr ? byPr.get(e.stack.belowPr) : undefined;
            if (!below) continue;
            // Merged only in the same merge as the member below, right on top of it.
            if (e.state === 'merged') {
              expect(below.state, `#${below.prNumber} below merged #${e.prNumber}`).to.equal('merged');
              expect(e.mergedOntoSha, `#${e.prNumber} lands on #${below.prNumber}`).to.equal(below.mergedSha);
            }
            // A member below that failed takes this one out.
            if (below.state === 'failed') expect([e.state, e.lastReason], `#${e.prNumber}`).to.deep.equal(['failed', 'stack_member_removed']);
          }
          // Each stack was tested whole: no run holds a member without the member below it, unless that one had merged before.
          for (const r of outcome.runs) {
            const chain = new Set([...r.baseEntryIds, ...r.entryIds]);
            for (const id of r.entryIds) {
              const stack = outcome.entries.find((x) => x.id === id)!.stack;
              const below = stack?.belowPr ? byPr.get(stack.belowPr)! : undefined;
              if (below)
                expect(
                  chain.has(below.id) || (below.state === 'merged' && below.stateChangedAt <= r.createdAt),
                  `run ${r.id} without #${below.prNumber}`,
                ).to.equal(true);
            }
          }
          removed += outcome.entries.filter((e) => e.lastReason === 'stack_member_removed').length;
          stacked += outcome.entries.filter((e) => e.stack && e.state === 'merged').length;
        }
        // The workloads exercise both paths: stacks landing whole, and members taken out with a failed one.
        expect(stacked).to.be.greaterThan(10);
        expect(removed).to.be.greaterThan(0);
      });
    }
  });
});
