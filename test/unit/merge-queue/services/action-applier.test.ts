// The ActionApplier over in-memory repositories and an in-memory forge: every action is a
// compare-and-set, and a lost race ("stale") changes nothing it should not.
import { expect } from 'chai';
import { ActionApplier, type ApplyContext } from '../../../../shared/merge-queue/services/engine/action-applier.js';
import { createLogger } from '../../../../shared/platform/logging.js';
import type { Entry, Queue, TestRun } from '../../../../shared/merge-queue/domain/model.js';
import type { MergeAction, StartRunAction } from '../../../../shared/merge-queue/domain/planner/index.js';
import { makeEntry } from '../../../../scripts/lib/entries.js';
import { InMemoryForge } from '../../../../shared/merge-queue/simulation/in-memory-forge.js';
import { inMemoryRepositories } from '../../../../shared/merge-queue/simulation/in-memory-repositories.js';

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const NOW = new Date('2026-01-01T00:00:00Z');

async function newTestService() {
  const repos = inMemoryRepositories();
  const forge = new InMemoryForge();
  const repo = forge.createRepository(REPO);
  const evaluated: TestRun[] = [];
  const sut = new ActionApplier({
    store: repos,
    logger: createLogger('silent'),
    scheduleTimeout: async () => undefined,
    scheduleStatusWatch: async () => undefined,
    evaluateRun: async (run) => {
      evaluated.push(run);
      return null;
    },
  });
  const queue = await repos.queues.create('org1', REPO, 'main', { mode: 'single', concurrency: 1, targetSha: repo.head('main')! });
  /** A submitted entry for pull request n (opened at the forge), in `state`. */
  const entry = async (n: number, state: Entry['state'], changes: Record<string, string> = { [`f${n}.txt`]: `${n}\n` }) => {
    const prSha = repo.openPullRequest({ number: n, commits: [changes] });
    const e = makeEntry({ orgId: 'org1', queueId: queue.id, prNumber: n, seq: n, prSha, prTitle: `Change ${n}`, state });
    await repos.entries.insert(e);
    return e;
  };
  const context = (q: Queue, entries: Entry[]): ApplyContext => ({ queue: q, provider: forge, entries: new Map(entries.map((e) => [e.id, e])), now: NOW });
  const startRun = (tested: Entry[], base: Entry[] = []): StartRunAction => ({
    kind: 'start_run',
    runKind: 'main',
    tested: tested.map((e) => ({ entryId: e.id, prNumber: e.prNumber, prSha: e.prSha, expectedVersion: e.version })),
    base: base.map((e) => ({ entryId: e.id, prNumber: e.prNumber, prSha: e.prSha })),
    targetSha: repo.head('main')!,
    bisectionOf: null,
    interactionOf: null,
    requiredStatuses: ['ci'],
    requiredStatusesSource: 'merge_instance',
    timeoutMinutes: 0,
    reason: 'test_run_started',
    detail: 'test',
  });
  const merge = (items: Entry[]): MergeAction => ({
    kind: 'merge',
    items: items.map((e) => ({
      entryId: e.id,
      prNumber: e.prNumber,
      prSha: e.prSha,
      expectedState: e.state,
      expectedVersion: e.version,
      verifiedByTestRun: null,
    })),
    proofRunId: null,
    expectedTargetSha: repo.head('main')!,
    verifyTree: false,
    reason: 'merge_graph_merge',
    detail: 'test',
  });
  return { sut, fakes: { repos, forge, repo, queue, evaluated, entry, context, startRun, merge } };
}

describe('ActionApplier (in-memory repositories and forge)', () => {
  it('starts a run: records it, moves the entry to testing, builds the branch and hands the built run to evaluation', async () => {
    const { sut, fakes } = await newTestService();
    const e = await fakes.entry(1, 'pending');
    const outcome = await sut.applyAll(fakes.context(fakes.queue, [e]), [fakes.startRun([e])]);
    expect(outcome).to.deep.equal({ applied: 1, stale: false });
    const [run] = [...fakes.repos.testRuns.rows.values()];
    expect(run).to.deep.include({ status: 'in_progress', entryIds: [e.id], sha: fakes.repo.head(run!.branch) });
    expect(await fakes.repos.entries.findById(e.id)).to.deep.include({ state: 'testing', currentRunId: run!.id });
    expect(fakes.evaluated.map((r) => r.id)).to.deep.equal([run!.id]);
  });

  it('loses the race for an entry that changed since the snapshot: the run is cancelled, nothing is built', async () => {
    const { sut, fakes } = await newTestService();
    const e = await fakes.entry(1, 'pending');
    await fakes.repos.entries.patch(e.id, e.version, { noBatch: true });
    const outcome = await sut.applyAll(fakes.context(fakes.queue, [e]), [fakes.startRun([e])]);
    expect(outcome).to.deep.equal({ applied: 0, stale: true });
    const [run] = [...fakes.repos.testRuns.rows.values()];
    expect(run).to.deep.include({ status: 'cancelled', conclusionReason: 'test_run_lost' });
    expect((await fakes.repos.entries.findById(e.id))?.state).to.equal('pending');
    expect(fakes.forge.writes).to.deep.equal([]);
  });

  it('applies nothing that starts or merges when the queue changed since the snapshot (say, it was paused)', async () => {
    const { sut, fakes } = await newTestService();
    const e = await fakes.entry(1, 'pending');
    await fakes.repos.queues.update(fakes.queue.id, fakes.queue.version, { state: 'paused' }, 'paused');
    expect(await sut.applyAll(fakes.context(fakes.queue, [e]), [fakes.startRun([e])])).to.deep.equal({ applied: 0, stale: true });
    expect(fakes.repos.testRuns.rows.size).to.equal(0);
  });

  it('fails the run of a branch that cannot be built, blaming the pull request that conflicts', async () => {
    const { sut, fakes } = await newTestService();
    const a = await fakes.entry(1, 'testing', { 'same.txt': 'a\n' });
    const b = await fakes.entry(2, 'pending', { 'same.txt': 'b\n' });
    await sut.applyAll(fakes.context(fakes.queue, [a, b]), [fakes.startRun([b], [a])]);
    const [run] = [...fakes.repos.testRuns.rows.values()];
    expect(run).to.deep.include({ status: 'failed', conclusionReason: 'start_test_run_merge_conflict', culpritEntryIds: [b.id] });
  });

  it('merges in order and records each merge onto the one before', async () => {
    const { sut, fakes } = await newTestService();
    const a = await fakes.entry(1, 'tests_passed');
    const b = await fakes.entry(2, 'tests_passed');
    const before = fakes.repo.head('main');
    expect(await sut.applyAll(fakes.context(fakes.queue, [a, b]), [fakes.merge([a, b])])).to.deep.equal({ applied: 1, stale: false });
    const [ma, mb] = [await fakes.repos.entries.findById(a.id), await fakes.repos.entries.findById(b.id)];
    expect([ma?.state, mb?.state]).to.deep.equal(['merged', 'merged']);
    expect(ma?.mergedOntoSha).to.equal(before);
    expect(mb?.mergedOntoSha).to.equal(ma?.mergedSha);
    expect((await fakes.repos.queues.findById(fakes.queue.id))?.observedTargetSha).to.equal(mb?.mergedSha);
  });

  it('merges nothing when an entry changed since the snapshot or the target moved', async () => {
    const { sut, fakes } = await newTestService();
    const a = await fakes.entry(1, 'tests_passed');
    const action = fakes.merge([a]);
    await fakes.repos.entries.transition(a.id, { from: ['tests_passed'] }, { to: 'cancelled', reason: 'user_requested' });
    expect((await sut.applyAll(fakes.context(fakes.queue, [a]), [action])).stale).to.equal(true);
    const b = await fakes.entry(2, 'tests_passed');
    const moved = fakes.merge([b]);
    fakes.repo.push('main', { 'other.txt': 'x\n' });
    expect((await sut.applyAll(fakes.context(fakes.queue, [b]), [moved])).stale).to.equal(true);
    expect((await fakes.repos.entries.findById(b.id))?.state, 'untouched: tested again on the new head').to.equal('tests_passed');
    expect(fakes.forge.writes).to.deep.equal([]);
  });
});
