// Bisection of a failed batch (merge-queue-behaviour §1.10, Part 2 §2.2): prefix bisection on
// its own pool of slots, culprits fail, innocents merge once a passed run proves them.
import { expect } from 'chai';
import { searchCulprits, type ProbeResult } from '../../../../shared/merge-queue/domain/planner/bisection-search.js';
import { entry, queue } from '../../../../shared/merge-queue/simulation/builders.js';
import { Simulator, finish, running, states } from '../../../../shared/merge-queue/simulation/simulator.js';

const fail = (runId: string, chain: string[]): ProbeResult => ({ runId, chain, passed: false, failureReason: 'test_run_required_status_failed' });
const pass = (runId: string, chain: string[]): ProbeResult => ({ runId, chain, passed: true, failureReason: 'test_run_required_status_failed' });
const B = ['a', 'b', 'c', 'd'];

describe('planner: bisection', () => {
  describe('the culprit search (pure)', () => {
    it('splits a failed batch into halves: the first on the base, the second on base + first half', () => {
      const s = searchCulprits(B, new Set(), [fail('r', B)], false);
      expect(s.probes).to.deep.equal([
        { tested: ['a', 'b'], base: [] },
        { tested: ['c', 'd'], base: ['a', 'b'] },
      ]);
    });

    it('with bisection_skip_redundant_tests only the first half is tested (the second is implied)', () => {
      const s = searchCulprits(B, new Set(), [fail('r', B)], true);
      expect(s.probes).to.deep.equal([{ tested: ['a', 'b'], base: [] }]);
    });

    it('first half passed: the second half is split directly when redundant tests are skipped', () => {
      const s = searchCulprits(B, new Set(), [fail('r', B), pass('p1', ['a', 'b'])], true);
      expect([s.proven, s.proofRunId]).to.deep.equal([2, 'p1']);
      expect(s.probes).to.deep.equal([{ tested: ['c'], base: ['a', 'b'] }]);
    });

    it('a failing prefix one longer than the proven prefix names a culprit; the rest is re-tested without it', () => {
      const s = searchCulprits(B, new Set(), [fail('r', B), fail('p1', ['a', 'b']), pass('p2', ['a'])], true);
      expect(s.culprits).to.deep.equal([{ entryId: 'b', runId: 'p1', reason: 'test_run_required_status_failed' }]);
      expect(s.candidates).to.deep.equal(['a', 'c', 'd']);
      expect(s.probes).to.deep.equal([{ tested: ['c', 'd'], base: ['a'] }]);
    });

    it('finds two culprits', () => {
      const s = searchCulprits(
        B,
        new Set(),
        [fail('r', B), fail('p1', ['a', 'b']), pass('p2', ['a']), fail('p3', ['a', 'c', 'd']), pass('p4', ['a', 'c'])],
        true,
      );
      expect(s.culprits.map((c) => c.entryId)).to.deep.equal(['b', 'd']);
      expect([s.candidates, s.proven, s.probes]).to.deep.equal([['a', 'c'], 2, []]);
    });

    it('a pass of a prefix that failed before was a flake: the pass wins', () => {
      const s = searchCulprits(B, new Set(), [fail('r', B), pass('again', B)], false);
      expect([s.proven, s.culprits, s.probes]).to.deep.equal([4, [], []]);
    });

    it('entries removed (cancelled) leave the candidates; results that held them no longer count', () => {
      const s = searchCulprits(B, new Set(['c']), [fail('r', B), pass('p1', ['a', 'b'])], true);
      expect(s.candidates).to.deep.equal(['a', 'b', 'd']);
      expect(s.probes).to.deep.equal([{ tested: ['d'], base: ['a', 'b'] }]);
    });
  });

  describe('in the queue', () => {
    const batchQueue = (over = {}) =>
      queue({
        batch: true,
        batchingMinSize: 4,
        batchingMaxWaitTimeMinutes: 0,
        concurrency: 2,
        bisectionConcurrency: 2,
        optimizationMode: 'bisection_skip_redundant_tests',
        ...over,
      });

    async function failedBatch(bad: string[], over = {}): Promise<Simulator> {
      const sim = new Simulator({ queue: batchQueue(over), entries: [1, 2, 3, 4].map((n) => entry(n)), bad: new Set(bad) });
      await sim.settle();
      expect(running(sim)).to.deep.equal(['1,2,3,4|']);
      await finish(sim, [1, 2, 3, 4], 'failed');
      await sim.settle();
      return sim;
    }

    async function answerUntilDone(sim: Simulator): Promise<void> {
      for (let i = 0; i < 50 && !sim.allTerminal(); i++) {
        const r = sim.inProgress()[0];
        if (!r) throw new Error(`stuck: ${JSON.stringify(states(sim))}`);
        await sim.conclude(r.id, sim.verdict(r), 'test_run_passed');
        await sim.settle();
      }
    }

    it('one culprit: found by prefix bisection, innocents merge, the culprit fails', async () => {
      const sim = await failedBatch(['e2']);
      expect(running(sim)).to.deep.equal(['1,2|']);
      expect([...sim.runs.values()].filter((r) => r.kind === 'bisection').map((r) => r.id)).to.deep.equal(['run2-bisection']);
      expect(sim.entries.get('e1')!.lastReason).to.equal('test_run_started');
      expect(sim.entries.get('e3')!.lastReason).to.equal('bisection_required');
      await finish(sim, [1, 2], 'failed');
      await sim.settle();
      expect(running(sim)).to.deep.equal(['1|']);
      await finish(sim, [1], 'succeeded');
      await sim.settle();
      expect(states(sim)).to.deep.include({ e1: 'merged', e2: 'failed' });
      expect(sim.entries.get('e2')!.lastReason).to.equal('test_run_required_status_failed');
      expect(running(sim)).to.deep.equal(['3,4|']);
      await finish(sim, [3, 4], 'succeeded');
      await sim.settle();
      expect(states(sim)).to.deep.equal({ e1: 'merged', e2: 'failed', e3: 'merged', e4: 'merged' });
      expect(sim.runs.size).to.equal(4); // the batch, then 1-2, 1, 3-4
    });

    it('two culprits', async () => {
      const sim = await failedBatch(['e2', 'e4']);
      await answerUntilDone(sim);
      expect(states(sim)).to.deep.equal({ e1: 'merged', e2: 'failed', e3: 'merged', e4: 'failed' });
      expect(sim.mergeOrder).to.deep.equal(['e1', 'e3']);
      expect([...sim.runs.values()].map((r) => r.entryIds.join(','))).to.deep.equal(['e1,e2,e3,e4', 'e1,e2', 'e1', 'e3,e4', 'e3']);
    });

    it('innocents proven by a passing prefix merge without being tested again', async () => {
      const sim = await failedBatch(['e4']);
      await finish(sim, [1, 2], 'succeeded');
      await sim.settle();
      expect(sim.mergeOrder).to.deep.equal(['e1', 'e2']);
      expect(sim.entries.get('e2')!.verifiedByTestRun).to.equal('run2-bisection');
      expect(running(sim)).to.deep.equal(['3|']);
      await finish(sim, [3], 'succeeded');
      await sim.settle();
      expect(states(sim)).to.deep.equal({ e1: 'merged', e2: 'merged', e3: 'merged', e4: 'failed' });
      expect(sim.runs.size).to.equal(3);
    });

    it('redundant-run skipping saves the runs whose outcome is implied', async () => {
      const skip = await failedBatch(['e4']);
      await answerUntilDone(skip);
      const off = await failedBatch(['e4'], { optimizationMode: 'off' });
      expect(running(off)).to.deep.equal(['1,2|', '3,4|1,2']);
      await answerUntilDone(off);
      for (const sim of [skip, off]) expect(states(sim)).to.deep.equal({ e1: 'merged', e2: 'merged', e3: 'merged', e4: 'failed' });
      expect(skip.runs.size).to.be.lessThan(off.runs.size);
      expect([skip.runs.size, off.runs.size]).to.deep.equal([3, 5]);
    });

    it('bisection runs use their own pool (bisectionConcurrency), apart from concurrency', async () => {
      const sim = await failedBatch(['e4'], { optimizationMode: 'off', bisectionConcurrency: 1 });
      expect(running(sim)).to.deep.equal(['1,2|']);
    });

    it('entries added during a bisection are not mixed in, and wait behind it', async () => {
      const sim = await failedBatch(['e2']);
      sim.addEntry(entry(5));
      sim.addEntry(entry(6));
      await sim.settle();
      expect(running(sim)).to.deep.equal(['1,2|']);
      await answerUntilDone(sim);
      expect(states(sim)).to.deep.equal({ e1: 'merged', e2: 'failed', e3: 'merged', e4: 'merged', e5: 'merged', e6: 'merged' });
      const bisectionRuns = [...sim.runs.values()].filter((r) => r.kind === 'bisection');
      expect(bisectionRuns.every((r) => r.id.endsWith('-bisection'))).to.equal(true);
      expect(bisectionRuns.flatMap((r) => [...r.entryIds, ...r.baseEntryIds]).filter((id) => id === 'e5' || id === 'e6')).to.deep.equal([]);
    });

    it('the hold comes before bisection: with depth 1 the batch waits for the group behind it', async () => {
      const sim = new Simulator({
        queue: batchQueue({ pendingFailureDepth: 1, batchingMinSize: 2 }),
        entries: [1, 2, 3, 4].map((n) => entry(n)),
        bad: new Set(['e2']),
      });
      await sim.settle();
      expect(running(sim)).to.deep.equal(['1,2|', '3,4|1,2']);
      await finish(sim, [1, 2], 'failed');
      await sim.settle();
      expect(states(sim)).to.deep.include({ e1: 'pending_failure', e2: 'pending_failure' });
      await finish(sim, [3, 4], 'failed');
      await sim.settle();
      expect(running(sim)).to.deep.equal(['1|']);
    });

    it('a push outside the queue abandons the bisection: members return to the queue', async () => {
      const sim = await failedBatch(['e2']);
      sim.pushOutside('hotfix', 'outside');
      await sim.settle();
      expect([...sim.entries.values()].every((e) => !e.bisectionOf)).to.equal(true);
      expect(running(sim)).to.deep.equal(['1,2,3,4|']);
      expect(sim.entries.get('e1')!.lastReason).to.equal('test_run_started');
    });
  });
});
