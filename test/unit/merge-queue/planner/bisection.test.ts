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
      const s = searchCulprits(B, new Set(), [fail('r', B)], { skipRedundant: false, checkInteraction: () => false });
      expect(s.probes).to.deep.equal([
        { tested: ['a', 'b'], base: [] },
        { tested: ['c', 'd'], base: ['a', 'b'] },
      ]);
    });

    it('with bisection_skip_redundant_tests only the first half is tested (the second is implied)', () => {
      const s = searchCulprits(B, new Set(), [fail('r', B)], { skipRedundant: true, checkInteraction: () => false });
      expect(s.probes).to.deep.equal([{ tested: ['a', 'b'], base: [] }]);
    });

    it('first half passed: the second half is split directly when redundant tests are skipped', () => {
      const s = searchCulprits(B, new Set(), [fail('r', B), pass('p1', ['a', 'b'])], { skipRedundant: true, checkInteraction: () => false });
      expect([s.proven, s.proofRunId]).to.deep.equal([2, 'p1']);
      expect(s.probes).to.deep.equal([{ tested: ['c'], base: ['a', 'b'] }]);
    });

    it('a failing prefix one longer than the proven prefix names a culprit; the rest is re-tested without it', () => {
      const s = searchCulprits(B, new Set(), [fail('r', B), fail('p1', ['a', 'b']), pass('p2', ['a'])], { skipRedundant: true, checkInteraction: () => false });
      expect(s.culprits).to.deep.equal([{ entryId: 'b', runId: 'p1', reason: 'test_run_required_status_failed' }]);
      expect(s.candidates).to.deep.equal(['a', 'c', 'd']);
      expect(s.probes).to.deep.equal([{ tested: ['c', 'd'], base: ['a'] }]);
    });

    it('finds two culprits', () => {
      const s = searchCulprits(B, new Set(), [fail('r', B), fail('p1', ['a', 'b']), pass('p2', ['a']), fail('p3', ['a', 'c', 'd']), pass('p4', ['a', 'c'])], {
        skipRedundant: true,
        checkInteraction: () => false,
      });
      expect(s.culprits.map((c) => c.entryId)).to.deep.equal(['b', 'd']);
      expect([s.candidates, s.proven, s.probes]).to.deep.equal([['a', 'c'], 2, []]);
    });

    it('a pass of a prefix that failed before was a flake: the pass wins', () => {
      const s = searchCulprits(B, new Set(), [fail('r', B), pass('again', B)], { skipRedundant: false, checkInteraction: () => false });
      expect([s.proven, s.culprits, s.probes]).to.deep.equal([4, [], []]);
    });

    it('entries removed (cancelled) leave the candidates; results that held them no longer count', () => {
      const s = searchCulprits(B, new Set(['c']), [fail('r', B), pass('p1', ['a', 'b'])], { skipRedundant: true, checkInteraction: () => false });
      expect(s.candidates).to.deep.equal(['a', 'b', 'd']);
      expect(s.probes).to.deep.equal([{ tested: ['d'], base: ['a', 'b'] }]);
    });
  });

  describe('side-by-side rounds (a bisection pool above one, redundant tests skipped)', () => {
    const EIGHT = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const search = (results: ProbeResult[], running: string[][] = [], ways = 3) =>
      searchCulprits(EIGHT, new Set(), results, { skipRedundant: true, ways, running, checkInteraction: () => false });

    it('a pool of seven cuts a failed batch of eight everywhere, each slice on top of the ones before it: one round finds the culprit', () => {
      expect(search([fail('r', EIGHT)], [], 7).probes).to.deep.equal(EIGHT.slice(0, 7).map((id, i) => ({ tested: [id], base: EIGHT.slice(0, i) })));
      const found = search([fail('r', EIGHT), pass('p4', EIGHT.slice(0, 4)), fail('p5', EIGHT.slice(0, 5))], [], 7);
      expect(found.culprits.map((c) => c.entryId)).to.deep.equal(['e']);
    });

    it('no more cuts than save a round: a pool of three cuts eight twice (two rounds either way), and four once, as one at a time does', () => {
      expect(search([fail('r', EIGHT)]).probes).to.deep.equal([
        { tested: ['a', 'b', 'c'], base: [] },
        { tested: ['d', 'e', 'f'], base: ['a', 'b', 'c'] },
      ]);
      const four = searchCulprits(B, new Set(), [fail('r', B)], { skipRedundant: true, ways: 3, checkInteraction: () => false });
      expect(four.probes).to.deep.equal([
        { tested: ['a'], base: [] },
        { tested: ['b'], base: ['a'] },
        { tested: ['c'], base: ['a', 'b'] },
      ]);
      const fourByTwo = searchCulprits(B, new Set(), [fail('r', B)], { skipRedundant: true, ways: 2, checkInteraction: () => false });
      expect(fourByTwo.probes).to.deep.equal([{ tested: ['a', 'b'], base: [] }]);
    });

    it('a result arriving early does not re-cut the round: the probes still running that split the span are kept', () => {
      const s = search([fail('r', EIGHT), pass('p1', ['a', 'b', 'c'])], [EIGHT.slice(0, 6)]);
      expect([s.proven, s.probes]).to.deep.equal([3, [{ tested: ['d', 'e', 'f'], base: ['a', 'b', 'c'] }]]);
    });

    it('a round that is over cuts the span left afresh', () => {
      const s = search([fail('r', EIGHT), pass('p1', ['a', 'b', 'c']), fail('p2', EIGHT.slice(0, 6))]);
      expect([s.proven, s.probes]).to.deep.equal([
        3,
        [
          { tested: ['d'], base: ['a', 'b', 'c'] },
          { tested: ['e'], base: ['a', 'b', 'c', 'd'] },
        ],
      ]);
    });

    it('a culprit found mid-round drops the probes that held it; the rest is tested whole without it', () => {
      const s = search([fail('r', EIGHT), pass('p1', ['a', 'b']), fail('p2', ['a', 'b', 'c'])], [EIGHT.slice(0, 6)]);
      expect(s.culprits.map((c) => c.entryId)).to.deep.equal(['c']);
      expect(s.probes).to.deep.equal([{ tested: ['d', 'e', 'f', 'g', 'h'], base: ['a', 'b'] }]);
    });
  });

  describe('the interaction check (pure)', () => {
    const check = { skipRedundant: true, checkInteraction: () => true };
    const probe = (rId: string, chain: string[], passed: boolean, of: string): ProbeResult => ({ ...(passed ? pass : fail)(rId, chain), interactionOf: of });

    it('a culprit blamed on top of other members becomes a suspect, tested alone; the search goes on without it', () => {
      const s = searchCulprits(B, new Set(), [fail('r', B), pass('p1', ['a', 'b']), fail('p2', ['a', 'b', 'c'])], check);
      expect(s.culprits).to.deep.equal([]);
      expect(s.suspects).to.deep.equal([{ entryId: 'c', blamedBy: 'p2', below: ['a', 'b'], probe: { tested: ['c'], base: [], interactionOf: 'c' } }]);
      expect([s.candidates, s.proven]).to.deep.equal([['a', 'b', 'd'], 2]);
      expect(s.probes).to.deep.equal([
        { tested: ['d'], base: ['a', 'b'] },
        { tested: ['c'], base: [], interactionOf: 'c' },
      ]);
    });

    it('a culprit with nothing below it is condemned at once, and so is every culprit when the check is off', () => {
      const first = searchCulprits(B, new Set(), [fail('r', B), fail('p1', ['a'])], check);
      expect(first.culprits.map((c) => c.entryId)).to.deep.equal(['a']);
      const off = searchCulprits(B, new Set(), [fail('r', B), pass('p1', ['a', 'b']), fail('p2', ['a', 'b', 'c'])], {
        ...check,
        checkInteraction: () => false,
      });
      expect([off.culprits.map((c) => c.entryId), off.suspects]).to.deep.equal([['c'], []]);
    });

    const blamed = [fail('r', B), pass('p1', ['a', 'b']), fail('p2', ['a', 'b', 'c'])];

    it('failing alone too, it is the culprit, condemned by its run alone', () => {
      const s = searchCulprits(B, new Set(), [...blamed, probe('x1', ['c'], false, 'c')], check);
      expect([s.culprits, s.suspects]).to.deep.equal([[{ entryId: 'c', runId: 'x1', reason: 'test_run_required_status_failed' }], []]);
    });

    it('passing alone: the failure that blamed it is re-tested on the batch base, then the member it fails with is found by halving', () => {
      const alone = [...blamed, probe('x1', ['c'], true, 'c')];
      expect(searchCulprits(B, new Set(), alone, check).suspects[0]!.probe).to.deep.equal({ tested: ['c'], base: ['a', 'b'], interactionOf: 'c' });
      const again = [...alone, probe('x2', ['a', 'b', 'c'], false, 'c')];
      // Two members below: the middle probe stacks the first under it.
      expect(searchCulprits(B, new Set(), again, check).suspects[0]!.probe).to.deep.equal({ tested: ['c'], base: ['a'], interactionOf: 'c' });
      const withA = searchCulprits(B, new Set(), [...again, probe('x3', ['a', 'c'], false, 'c')], check);
      expect(withA.culprits).to.deep.equal([
        { entryId: 'c', runId: 'x3', reason: 'test_run_required_status_failed', interaction: { withEntryId: 'a', aloneRunId: 'x1' } },
      ]);
      const withB = searchCulprits(B, new Set(), [...again, probe('x3', ['a', 'c'], true, 'c')], check);
      expect(withB.culprits[0]).to.deep.include({ runId: 'x2', interaction: { withEntryId: 'b', aloneRunId: 'x1' } });
    });

    it('one member below: the pair re-tested on the batch base names it when it fails again', () => {
      const blamedB = [fail('r', ['a', 'b']), pass('p1', ['a']), probe('x1', ['b'], true, 'b')];
      expect(searchCulprits(['a', 'b'], new Set(), blamedB, check).suspects[0]!.probe).to.deep.equal({ tested: ['b'], base: ['a'], interactionOf: 'b' });
      const s = searchCulprits(['a', 'b'], new Set(), [...blamedB, probe('x2', ['a', 'b'], false, 'b')], check);
      expect(s.culprits).to.deep.equal([
        { entryId: 'b', runId: 'x2', reason: 'test_run_required_status_failed', interaction: { withEntryId: 'a', aloneRunId: 'x1' } },
      ]);
    });

    it('the failure that blamed it passes when re-tested: it was a flake, and the suspect is cleared (it leaves the bisection)', () => {
      const s = searchCulprits(B, new Set(), [...blamed, probe('x1', ['c'], true, 'c'), probe('x2', ['a', 'b', 'c'], true, 'c')], check);
      expect([s.culprits, s.suspects, s.cleared, s.candidates]).to.deep.equal([[], [], [{ entryId: 'c', runId: 'x2', below: ['a', 'b'] }], ['a', 'b', 'd']]);
      expect(s.probes).to.deep.equal([{ tested: ['d'], base: ['a', 'b'] }]);
    });

    it('a suspect that does not apply without the members below it, or whose check timed out, stays blamed by the run that blamed it', () => {
      const unbuildable = searchCulprits(B, new Set(), [...blamed, { ...probe('x1', ['c'], false, 'c'), unbuildable: true }], check);
      expect(unbuildable.culprits).to.deep.equal([{ entryId: 'c', runId: 'p2', reason: 'test_run_required_status_failed' }]);
      const timedOut = { ...probe('x2', ['a', 'c'], false, 'c'), failureReason: 'test_run_timeout' as const };
      const again = probe('x3', ['a', 'b', 'c'], false, 'c');
      const late = searchCulprits(B, new Set(), [...blamed, probe('x1', ['c'], true, 'c'), again, timedOut], check);
      expect(late.culprits).to.deep.equal([{ entryId: 'c', runId: 'p2', reason: 'test_run_required_status_failed' }]);
    });

    it('the member it failed with removed (cancelled) during the check: the blame is gone and it is a candidate again', () => {
      const s = searchCulprits(B, new Set(['b']), [...blamed, probe('x1', ['c'], true, 'c')], check);
      expect([s.suspects, s.culprits, s.candidates]).to.deep.equal([[], [], ['a', 'c', 'd']]);
    });
  });

  describe('in the queue', () => {
    const batchQueue = (over = {}) =>
      queue({
        batch: true,
        batchingMinSize: 4,
        batchingMaxWaitTimeMinutes: 0,
        concurrency: 2,
        // One probe at a time: the binary search (side-by-side rounds have their own cases below).
        bisectionConcurrency: 1,
        optimizationMode: 'bisection_skip_redundant_tests',
        // The prefix search alone; the interaction check has its own cases below.
        checkInteractions: false,
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
      const off = await failedBatch(['e4'], { optimizationMode: 'off', bisectionConcurrency: 2 });
      expect(running(off)).to.deep.equal(['1,2|', '3,4|1,2']);
      await answerUntilDone(off);
      for (const sim of [skip, off]) expect(states(sim)).to.deep.equal({ e1: 'merged', e2: 'merged', e3: 'merged', e4: 'failed' });
      expect(skip.runs.size).to.be.lessThan(off.runs.size);
      expect([skip.runs.size, off.runs.size]).to.deep.equal([3, 5]);
    });

    it('a pool of three finds the culprit of a batch of eight in two rounds of CI, where one at a time takes three', async () => {
      const rounds = async (bisectionConcurrency: number): Promise<{ rounds: number; runs: number; sim: Simulator }> => {
        const q = batchQueue({ batchingMinSize: 8, bisectionConcurrency });
        const sim = new Simulator({ queue: q, entries: [1, 2, 3, 4, 5, 6, 7, 8].map((n) => entry(n)), bad: new Set(['e6']) });
        await sim.settle();
        await finish(sim, [1, 2, 3, 4, 5, 6, 7, 8], 'failed');
        await sim.settle();
        let n = 0;
        // A round: every run going concludes at once, as runs of equal length do.
        for (; n < 10 && sim.entries.get('e6')!.state !== 'failed'; n++) {
          for (const r of sim.inProgress()) await sim.conclude(r.id, sim.verdict(r), 'test_run_passed');
          await sim.settle();
        }
        return { rounds: n, runs: sim.runs.size, sim };
      };
      const wide = await rounds(3);
      const narrow = await rounds(1);
      expect([wide.rounds, narrow.rounds]).to.deep.equal([2, 3]);
      // The price: one run more. Both ran the batch, and #7, #8 once #6 was named; between them the
      // wide search ran 2 + 2 probes, the narrow one 1 + 1 + 1.
      expect([wide.runs, narrow.runs]).to.deep.equal([6, 5]);
      for (const { sim } of [wide, narrow]) {
        await answerUntilDone(sim);
        expect(states(sim)).to.deep.equal({ e1: 'merged', e2: 'merged', e3: 'merged', e4: 'merged', e5: 'merged', e6: 'failed', e7: 'merged', e8: 'merged' });
      }
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

    it('interaction: the suspect is tested alone on the batch base while the queue goes on; it fails naming the member it clashes with', async () => {
      const sim = new Simulator({
        queue: batchQueue({ checkInteractions: true, bisectionConcurrency: 2 }),
        entries: [1, 2, 3, 4, 5, 6].map((n) => entry(n)),
        clashes: [['e1', 'e3']],
      });
      await sim.settle();
      expect(running(sim)).to.deep.equal(['1,2,3,4|', '5,6|1,2,3,4']);
      await finish(sim, [1, 2, 3, 4], 'failed');
      await finish(sim, [5, 6], 'failed');
      await sim.settle();
      await finish(sim, [1, 2], 'succeeded');
      await sim.settle();
      // #1 and #2 merged; #3 alone on the new head fails (it holds #1 now): #3 is blamed on top of them.
      // (A pool of two searches a batch of four one probe at a time: two cuts would not save a round.)
      expect(running(sim)).to.deep.equal(['3|']);
      await finish(sim, [3], 'failed');
      await sim.settle();
      // Its check: #3 alone on the batch's own base, in the bisection pool; #4 goes on without it.
      expect(running(sim)).to.deep.equal(['4|', '3|']);
      const alone = sim.inProgress().find((r) => r.interactionOf === 'e3')!;
      expect([alone.targetSha, alone.baseEntryIds]).to.deep.equal([sim.runs.get('run1')!.targetSha, []]);
      expect(sim.entries.get('e3')!.history.at(-1)!.detail).to.equal(`interaction check: testing #3 on the batch's base ${alone.targetSha.slice(0, 12)}`);
      await finish(sim, [4], 'succeeded');
      await sim.settle();
      // #5 and #6 do not wait for the check either.
      expect([states(sim).e4, states(sim).e3, running(sim)]).to.deep.equal(['merged', 'testing', ['3|', '5,6|']]);
      await sim.conclude(alone.id, sim.verdict(alone), 'test_run_passed');
      await sim.settle();
      // Passing alone: first the failure that blamed it again, on the batch's base (#1, #2 under it).
      const again = sim.inProgress().find((r) => r.interactionOf === 'e3')!;
      expect([again.entryIds, again.baseEntryIds, again.targetSha]).to.deep.equal([['e3'], ['e1', 'e2'], alone.targetSha]);
      await sim.conclude(again.id, sim.verdict(again), 'test_run_failed');
      await sim.settle();
      // Then the member below it that it fails with, by halving (#1 under it).
      const pair = sim.inProgress().find((r) => r.interactionOf === 'e3')!;
      expect([pair.entryIds, pair.baseEntryIds, pair.targetSha]).to.deep.equal([['e3'], ['e1'], alone.targetSha]);
      await answerUntilDone(sim);
      expect(states(sim)).to.deep.equal({ e1: 'merged', e2: 'merged', e3: 'failed', e4: 'merged', e5: 'merged', e6: 'merged' });
      const e3 = sim.entries.get('e3')!;
      expect(e3.interaction).to.deep.equal({ withEntryId: 'e1', withPrNumber: 1, aloneRunId: alone.id, togetherRunId: pair.id });
      expect(e3.history.at(-1)!.detail).to.equal(`it passes alone (test run ${alone.id}) and fails together with PR #1 (test run ${pair.id})`);
      // #1 merged long before; its timeline learns it too.
      const note = sim.entries.get('e1')!.history.at(-1)!;
      expect([note.from, note.to, note.reason, note.testRunId]).to.deep.equal(['merged', 'merged', 'interaction_found', pair.id]);
      expect(note.detail).to.equal(
        `PR #3 passes alone (test run ${alone.id}) and fails only together with this pull request (test run ${pair.id}): it was ejected with the verdict interaction`,
      );
    });

    it('interaction check: a group built on top of the suspect restarts without it at once, not after the check', async () => {
      const sim = new Simulator({
        queue: batchQueue({ checkInteractions: true, bisectionConcurrency: 2 }),
        entries: [1, 2, 3, 4, 5, 6].map((n) => entry(n)),
        clashes: [['e1', 'e3']],
      });
      await sim.settle();
      await finish(sim, [1, 2, 3, 4], 'failed');
      await sim.settle();
      await finish(sim, [1, 2], 'succeeded');
      await sim.settle();
      // #5 and #6 still test on top of the whole batch.
      expect(running(sim)).to.deep.equal(['5,6|1,2,3,4', '3|']);
      await finish(sim, [3], 'failed');
      await sim.settle();
      const e5 = sim.entries.get('e5')!;
      expect([e5.state, e5.lastReason, e5.history.at(-1)!.detail]).to.deep.equal([
        'pending',
        'prerequisite_merge_item_failed',
        'PR #3 ahead failed in the bisection of its batch (its interaction check goes on)',
      ]);
      // They wait only for #4, still in the search, not for #3's check.
      expect(running(sim)).to.deep.equal(['4|', '3|']);
      await finish(sim, [4], 'succeeded');
      await sim.settle();
      expect([states(sim).e3, running(sim)]).to.deep.equal(['testing', ['3|', '5,6|']]);
    });

    it('interaction check: a suspect whose failure does not happen again is cleared; the batch goes back to the queue', async () => {
      const sim = new Simulator({ queue: batchQueue({ checkInteractions: true, bisectionConcurrency: 2 }), entries: [1, 2, 3, 4].map((n) => entry(n)) });
      await sim.settle();
      // #3 is blamed by a flaky failure of the batch and of [1, 2, 3].
      await finish(sim, [1, 2, 3, 4], 'failed');
      await sim.settle();
      await finish(sim, [1, 2], 'succeeded');
      await sim.settle();
      await finish(sim, [3], 'failed');
      await sim.settle();
      const alone = sim.inProgress().find((r) => r.interactionOf === 'e3')!;
      await sim.conclude(alone.id, 'succeeded', 'test_run_passed');
      await sim.settle();
      const again = sim.inProgress().find((r) => r.interactionOf === 'e3')!;
      expect(again.baseEntryIds).to.deep.equal(['e1', 'e2']);
      await sim.conclude(again.id, 'succeeded', 'test_run_passed');
      await sim.settle();
      const e3 = sim.entries.get('e3')!;
      const e4 = sim.entries.get('e4')!;
      for (const e of [e3, e4]) {
        expect([e.state, e.bisectionOf ?? null]).to.deep.equal(['testing', null]);
        expect(e.history.find((h) => h.to === 'pending' && h.reason === 'bisection_test_run_passed')!.detail).to.equal(
          `the interaction check cleared PR #3: it passes alone, and on top of PR #1, PR #2 it passed too when tested again (test run ${again.id}); a flaky run had blamed it, so the batch's pull requests are tested again`,
        );
      }
      expect(running(sim)).to.deep.equal(['3,4|']);
      await answerUntilDone(sim);
      expect(states(sim)).to.deep.equal({ e1: 'merged', e2: 'merged', e3: 'merged', e4: 'merged' });
    });

    it('interaction check: a suspect that fails alone too is simply the culprit', async () => {
      const sim = await failedBatch(['e3'], { checkInteractions: true });
      await answerUntilDone(sim);
      expect(states(sim)).to.deep.equal({ e1: 'merged', e2: 'merged', e3: 'failed', e4: 'merged' });
      const e3 = sim.entries.get('e3')!;
      expect(e3.interaction ?? null).to.equal(null);
      expect(e3.history.at(-1)!.detail).to.match(/fails alone on the batch's base too/);
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
