// The repositories, held to one contract: the merge queue's against every database (embedded
// always, MongoDB with MONGO_URL) and its in-memory implementation; the platform's (tokens,
// organisations, webhook endpoints) against every database. Unique keys, compare-and-set
// transitions with history, idempotent registration, the named queries of the services.
import { expect } from 'chai';
import { forEachDatabase } from '../helpers/databases.js';
import { forEachMergeQueueStore } from '../helpers/merge-queue-stores.js';
import { createMergeQueueStore, type MergeQueueRepositories } from '../../shared/merge-queue/store/store.js';
import { createAccountsStore, type AccountsStore } from '../../shared/platform/accounts/accounts-module.js';
import { ensureIndexes } from '../../shared/platform/database/ensure-indexes.js';
import { QueueExistsError } from '../../shared/merge-queue/store/queue-repository.js';
import { headKey } from '../../shared/merge-queue/store/impacted-targets-repository.js';
import { makeEntry } from '../../scripts/lib/entries.js';
import type { Entry, TestRun } from '../../shared/merge-queue/domain/model.js';
import { DbWebhookEndpointRepository } from '../../shared/platform/events/store/webhook-endpoint-repository.js';

const repo = { host: 'github.com', owner: 'Acme', name: 'Widgets' };

forEachMergeQueueStore('merge-queue repositories', (getStore) => {
  let store: MergeQueueRepositories;
  beforeEach(() => {
    store = getStore();
  });

  describe('queues', () => {
    it('holds one queue per organisation, repository (case-insensitive) and branch', async () => {
      const q = await store.queues.create('org1', repo, 'main', { mode: 'single', concurrency: 2, targetSha: 'a'.repeat(40) });
      expect(q.bisectionConcurrency).to.equal(2);
      let err: unknown;
      try {
        await store.queues.create('org1', { ...repo, owner: 'acme', name: 'widgets' }, 'main', { mode: 'single', concurrency: 1, targetSha: 'a'.repeat(40) });
      } catch (e) {
        err = e;
      }
      expect(err).to.be.instanceOf(QueueExistsError);
      await store.queues.create('org2', repo, 'main', { mode: 'single', concurrency: 1, targetSha: 'a'.repeat(40) });
      await store.queues.create('org1', repo, 'release', { mode: 'single', concurrency: 1, targetSha: 'a'.repeat(40) });
      expect((await store.queues.find('org1', { ...repo, owner: 'ACME' }, 'main'))?.id).to.equal(q.id);
      expect(await store.queues.find('org3', repo, 'main')).to.equal(null);
    });

    it('records an unusable merge.lanes with compare-and-set on version, and clears it', async () => {
      const q = await store.queues.create('org1', repo, 'main', { mode: 'parallel', concurrency: 1, targetSha: 'a'.repeat(40) });
      expect(q.lanesProblem).to.equal(null);
      const problem = { sha: 'b'.repeat(40), message: 'glob must be relative', since: new Date(1_700_000_000_000) };
      const recorded = await store.queues.recordLanesProblem(q.id, q.version, problem, problem.sha);
      expect(recorded?.lanesProblem).to.deep.equal(problem);
      expect((await store.queues.findById(q.id))?.lanesProblem).to.deep.equal(problem);
      expect(await store.queues.recordLanesProblem(q.id, q.version, null, 'c'.repeat(40)), 'stale version').to.equal(null);
      const cleared = await store.queues.recordLanesProblem(q.id, recorded!.version, null, 'c'.repeat(40));
      expect(cleared?.lanesProblem).to.equal(null);
      expect((await store.queues.history(q.id)).map((h) => h.change)).to.deep.equal([
        'created',
        `merge.lanes unusable at ${'b'.repeat(12)}: glob must be relative`,
        `merge.lanes usable or absent at ${'c'.repeat(12)}`,
      ]);
    });

    it('updates with compare-and-set on version and records history', async () => {
      const q = await store.queues.create('org1', repo, 'main', { mode: 'single', concurrency: 1, targetSha: 'a'.repeat(40) });
      const v2 = await store.queues.update(q.id, q.version, { concurrency: 3 }, 'concurrency=3');
      expect(v2?.concurrency).to.equal(3);
      expect(v2?.version).to.equal(q.version + 1);
      expect(await store.queues.update(q.id, q.version, { concurrency: 9 }, 'stale')).to.equal(null);
      expect((await store.queues.findById(q.id))?.concurrency).to.equal(3);
      expect((await store.queues.history(q.id)).map((h) => h.change)).to.deep.equal(['created', 'concurrency=3']);
      expect(await store.queues.delete(q.id, q.version)).to.equal(false);
      expect(await store.queues.delete(q.id, v2!.version)).to.equal(true);
    });

    it("lists an organisation's queues and their references, by repository then branch", async () => {
      const other = { host: 'github.com', owner: 'acme', name: 'gadgets' };
      await store.queues.create('org1', repo, 'release', { mode: 'single', concurrency: 1, targetSha: 'a'.repeat(40) });
      await store.queues.create('org1', other, 'main', { mode: 'single', concurrency: 1, targetSha: 'a'.repeat(40) });
      await store.queues.create('org1', repo, 'main', { mode: 'single', concurrency: 1, targetSha: 'a'.repeat(40) });
      await store.queues.create('org2', repo, 'main', { mode: 'single', concurrency: 1, targetSha: 'a'.repeat(40) });
      const names = (list: { repo: { name: string }; branch: string }[]) => list.map((q) => `${q.repo.name}/${q.branch}`);
      expect(names(await store.queues.listByOrg('org1'))).to.deep.equal(['gadgets/main', 'Widgets/main', 'Widgets/release']);
      expect(names(await store.queues.listRefs('org1', null))).to.deep.equal(['gadgets/main', 'Widgets/main', 'Widgets/release']);
      expect(names(await store.queues.listRefs('org1', { ...repo, owner: 'ACME', name: 'widgets' }))).to.deep.equal(['Widgets/main', 'Widgets/release']);
      expect(await store.queues.listRefs('org3', null)).to.deep.equal([]);
    });

    it('hands out increasing admission sequence numbers under concurrency', async () => {
      const q = await store.queues.create('org1', repo, 'main', { mode: 'single', concurrency: 1, targetSha: 'a'.repeat(40) });
      const seqs = await Promise.all(Array.from({ length: 50 }, () => store.queues.allocateSeq(q.id)));
      expect(new Set(seqs).size).to.equal(50);
      expect(Math.min(...seqs)).to.equal(1);
    });

    it('records the observed target head only when it changes', async () => {
      const q = await store.queues.create('org1', repo, 'main', { mode: 'single', concurrency: 1, targetSha: 'a'.repeat(40) });
      expect(await store.queues.observeTargetHead(q.id, 'a'.repeat(40))).to.equal(false);
      expect(await store.queues.observeTargetHead(q.id, 'b'.repeat(40))).to.equal(true);
      expect(await store.queues.observeTargetHead(q.id, 'b'.repeat(40))).to.equal(false);
    });

    it("records a digest's period once, refuses an earlier or the same one, and leaves the version as it is", async () => {
      const q = await store.queues.create('org1', repo, 'main', { mode: 'single', concurrency: 1, targetSha: 'a'.repeat(40) });
      expect(q.lastDigestAt).to.equal(null);
      const monday = new Date('2026-12-07T09:00:00Z');
      expect(await store.queues.recordDigest(q.id, monday, [])).to.equal(true);
      expect(await store.queues.recordDigest(q.id, monday, []), 'the same period again').to.equal(false);
      expect(await store.queues.recordDigest(q.id, new Date('2026-12-06T09:00:00Z'), []), 'an earlier one').to.equal(false);
      expect(await store.queues.recordDigest(q.id, new Date('2026-12-08T09:00:00Z'), [])).to.equal(true);
      const after = await store.queues.findById(q.id);
      expect(after?.lastDigestAt?.toISOString()).to.equal('2026-12-08T09:00:00.000Z');
      expect(after?.version).to.equal(q.version);
    });
  });

  describe('entries', () => {
    it('allows one active entry per pull request and queue, any number of ended ones', async () => {
      expect(await store.entries.insert(makeEntry({ orgId: 'o', queueId: 'q', prNumber: 5, state: 'not_ready' }))).to.equal('inserted');
      const second = makeEntry({ orgId: 'o', queueId: 'q', prNumber: 5, state: 'pending' });
      expect(await store.entries.insert(second)).to.equal('exists');
      expect(await store.entries.findById(second.id)).to.equal(null);
      await store.entries.insert(makeEntry({ orgId: 'o', queueId: 'q', prNumber: 5, state: 'cancelled' }));
      await store.entries.insert(makeEntry({ orgId: 'o', queueId: 'q', prNumber: 5, state: 'merged' }));
      await store.entries.insert(makeEntry({ orgId: 'o', queueId: 'other', prNumber: 5, state: 'pending' }));
      expect(await store.entries.countActive('q')).to.equal(1);
    });

    it('transitions with compare-and-set, appending history with the previous state and reason', async () => {
      const e = makeEntry({ orgId: 'o', queueId: 'q', state: 'not_ready' });
      await store.entries.insert(e);
      const pending = await store.entries.transition(e.id, { from: ['not_ready'] }, { to: 'pending', reason: 'merge_item_now_ready' });
      expect(pending?.state).to.equal('pending');
      expect(pending?.version).to.equal(2);
      // A guard on a state the entry has left, or on an old version, is a lost race: null.
      expect(await store.entries.transition(e.id, { from: ['not_ready'] }, { to: 'pending', reason: 'merge_item_now_ready' })).to.equal(null);
      expect(await store.entries.transition(e.id, { from: ['pending'], version: 1 }, { to: 'testing', reason: 'test_run_started' })).to.equal(null);
      const testing = await store.entries.transition(
        e.id,
        { from: ['pending'], version: 2 },
        { to: 'testing', reason: 'test_run_started', testRunId: 'r1', set: { currentRunId: 'r1' } },
      );
      const back = await store.entries.transition(
        e.id,
        { from: ['testing'] },
        { to: 'pending', reason: 'tests_restarted_by_api_request', restart: true, set: { currentRunId: null } },
      );
      expect(testing?.currentRunId).to.equal('r1');
      expect(back?.restartCount).to.equal(1);
      const cancelled = await store.entries.transition(e.id, { from: ['pending'] }, { to: 'cancelled', reason: 'user_requested', detail: 'by hand' });
      expect(cancelled?.history.map((h) => [h.from, h.to, h.reason])).to.deep.equal([
        ['not_ready', 'pending', 'merge_item_now_ready'],
        ['pending', 'testing', 'test_run_started'],
        ['testing', 'pending', 'tests_restarted_by_api_request'],
        ['pending', 'cancelled', 'user_requested'],
      ]);
      expect(cancelled?.lastReason).to.equal('user_requested');
      expect(await store.entries.findActiveByPr('q', e.prNumber)).to.equal(null);
      // Ended: a new active entry for the same pull request is allowed now.
      await store.entries.insert(makeEntry({ orgId: 'o', queueId: 'q', prNumber: e.prNumber }));
    });

    it('lists active entries in priority then admission order and finds the latest by number and branch', async () => {
      const a = makeEntry({ orgId: 'o', queueId: 'q', prNumber: 1, seq: 1, priorityValue: 100, prHeadBranch: 'feat' });
      const b = makeEntry({ orgId: 'o', queueId: 'q', prNumber: 2, seq: 2, priorityValue: 10 });
      const c = makeEntry({ orgId: 'o', queueId: 'q', prNumber: 3, seq: 3, priorityValue: 100 });
      for (const e of [c, a, b]) await store.entries.insert(e);
      expect((await store.entries.listActive('q')).map((e) => e.prNumber)).to.deep.equal([2, 1, 3]);
      expect((await store.entries.findLatestByPr('q', 1))?.id).to.equal(a.id);
      expect((await store.entries.findLatestByBranch('q', 'feat'))?.id).to.equal(a.id);
      expect(await store.entries.findLatestByBranch('q', 'nope')).to.equal(null);
    });

    it('answers the named queries of the services: by states, merged since, a page before a sequence number', async () => {
      const at = (ms: number) => new Date(1_700_000_000_000 + ms);
      const entries = [
        makeEntry({ orgId: 'o', queueId: 'q', prNumber: 1, seq: 1, state: 'merged', stateChangedAt: at(0) }),
        makeEntry({ orgId: 'o', queueId: 'q', prNumber: 2, seq: 2, state: 'merged', stateChangedAt: at(2000) }),
        makeEntry({ orgId: 'o', queueId: 'q', prNumber: 3, seq: 3, state: 'pending', stateChangedAt: at(3000) }),
        makeEntry({
          orgId: 'o',
          queueId: 'q',
          prNumber: 4,
          seq: 4,
          state: 'not_ready',
          stateChangedAt: at(4000),
          readiness: { doesBaseBranchMatch: true, gitHubMergeability: 'mergeable', requiresImpactedTargets: true, hasImpactedTargets: false },
        }),
        makeEntry({ orgId: 'o', queueId: 'other', prNumber: 5, seq: 1, state: 'merged', stateChangedAt: at(5000) }),
      ];
      for (const e of entries) await store.entries.insert(e);
      const numbers = (list: { prNumber: number }[]) => list.map((e) => e.prNumber);
      expect(numbers(await store.entries.listInStates('q', ['not_ready', 'pending']))).to.deep.equal([3, 4]);
      expect(numbers(await store.entries.listMergedSince('q', at(1000)))).to.deep.equal([2]);
      expect(await store.entries.countMergedBetween('q', at(0), at(2000))).to.equal(2);
      expect(await store.entries.countMergedBetween('q', at(1), at(1999))).to.equal(0);
      expect(numbers(await store.entries.listWaitingJudgedWith('q', true))).to.deep.equal([4]);
      expect(numbers(await store.entries.listWaitingJudgedWith('q', false))).to.deep.equal([3]);
      expect(numbers(await store.entries.listPage('q', { limit: 10 }))).to.deep.equal([4, 3, 2, 1]);
      expect(numbers(await store.entries.listPage('q', { limit: 2, beforeSeq: 4 }))).to.deep.equal([3, 2]);
      expect(numbers(await store.entries.listPage('q', { limit: 10, states: ['merged'], changedSince: at(1) }))).to.deep.equal([2]);
      expect(numbers(await store.entries.findByIds([entries[0]!.id, entries[4]!.id, 'absent']))).to.have.members([1, 5]);
    });
  });

  describe('entries: what the engine, metrics and the watchdog read and write', () => {
    it('finds the entries awaiting mergeability, counts by state, and lists every active entry', async () => {
      const e = (prNumber: number, over: Partial<Entry> = {}) => makeEntry({ orgId: 'o', queueId: 'q', prNumber, seq: prNumber, ...over });
      const awaiting = { doesBaseBranchMatch: true, gitHubMergeability: 'in_progress', requiresImpactedTargets: false, hasImpactedTargets: false } as const;
      await store.entries.insert(e(1, { readiness: awaiting }));
      await store.entries.insert(e(2, { readiness: awaiting, priorityValue: 0 }));
      await store.entries.insert(e(3, { state: 'pending', readiness: awaiting }));
      await store.entries.insert(e(4, { state: 'merged' }));
      await store.entries.insert(makeEntry({ orgId: 'o', queueId: 'q2', prNumber: 9, state: 'testing' }));
      const numbers = (list: Entry[]) => list.map((x) => x.prNumber);
      expect(numbers(await store.entries.listAwaitingMergeability('q'))).to.deep.equal([2, 1]);
      expect(await store.entries.countInStates('q', ['not_ready', 'merged'])).to.equal(3);
      expect(await store.entries.countInStates('q', ['testing'])).to.equal(0);
      expect(numbers(await store.entries.listActiveAll()).sort()).to.deep.equal([1, 2, 3, 9]);
    });

    it('reads active states and recently changed histories of an organisation or some of its queues', async () => {
      const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
      await store.entries.insert(makeEntry({ orgId: 'o', queueId: 'q', prNumber: 1, state: 'testing', stateChangedAt: at(10), bisectionOf: 'run-1' }));
      await store.entries.insert(makeEntry({ orgId: 'o', queueId: 'q', prNumber: 2, state: 'merged', stateChangedAt: at(30) }));
      await store.entries.insert(makeEntry({ orgId: 'o', queueId: 'q2', prNumber: 3, state: 'pending', stateChangedAt: at(40) }));
      await store.entries.insert(makeEntry({ orgId: 'other', queueId: 'q3', prNumber: 4, state: 'pending', stateChangedAt: at(50) }));
      const states = (list: { queueId: string; state: string; inBisection: boolean }[]) => list.map((x) => `${x.queueId}:${x.state}:${x.inBisection}`).sort();
      expect(states(await store.entries.listActiveStates({ orgId: 'o' }))).to.deep.equal(['q2:pending:false', 'q:testing:true']);
      expect(states(await store.entries.listActiveStates({ orgId: 'o', queueIds: ['q2'] }))).to.deep.equal(['q2:pending:false']);
      const changed = await store.entries.listHistoriesChangedSince({ orgId: 'o' }, at(30));
      expect(changed.map((x) => x.queueId).sort()).to.deep.equal(['q', 'q2']);
      expect(await store.entries.listHistoriesChangedSince({ orgId: 'o', queueIds: ['q'] }, at(31))).to.deep.equal([]);
    });

    it('patches and notes the timeline with compare-and-set on version, leaving the state as it is', async () => {
      const entry = makeEntry({ orgId: 'o', queueId: 'q', prNumber: 5, state: 'testing' });
      await store.entries.insert(entry);
      const patched = await store.entries.patch(entry.id, entry.version, { restartCount: 2 });
      expect(patched).to.include({ restartCount: 2, version: entry.version + 1, state: 'testing' });
      expect(await store.entries.patch(entry.id, entry.version, { restartCount: 7 })).to.equal(null);
      const note = { reason: 'required_status_not_reported', detail: 'lint was never reported', testRunId: 'run-1' } as const;
      expect(await store.entries.addTimelineNote(entry.id, note, new Date(5000))).to.equal(true);
      const noted = await store.entries.findById(entry.id);
      expect(noted).to.include({ state: 'testing', restartCount: 2, version: entry.version + 2 });
      expect(noted?.history.at(-1)).to.deep.equal({ at: new Date(5000), from: 'testing', to: 'testing', ...note });
      expect(await store.entries.addTimelineNote('absent', note)).to.equal(false);
    });
  });

  describe('impacted targets', () => {
    it('stores large lists, replaces on re-upload and keeps shas apart', async () => {
      const big = Array.from({ length: 12_345 }, (_, i) => `//pkg/${i}:test`);
      await store.impactedTargets.set('q', 7, 'ABCDEF1', big);
      expect(await store.impactedTargets.get('q', 7, 'abcdef1')).to.deep.equal(big);
      await store.impactedTargets.set('q', 7, 'abcdef1', ['//only:this']);
      expect(await store.impactedTargets.get('q', 7, 'abcdef1')).to.deep.equal(['//only:this']);
      await store.impactedTargets.set('q', 7, 'fedcba9', 'ALL');
      expect(await store.impactedTargets.get('q', 7, 'fedcba9')).to.equal('ALL');
      expect(await store.impactedTargets.has('q', 7, 'fedcba9')).to.equal(true);
      expect(await store.impactedTargets.get('q', 8, 'fedcba9')).to.equal(null);
    });

    it('reads several heads at once, by head key; heads without an upload are absent', async () => {
      const big = Array.from({ length: 7_001 }, (_, i) => `//big/${i}`);
      await store.impactedTargets.set('q', 1, 'AAAA', big);
      await store.impactedTargets.set('q', 2, 'bbbb', 'ALL');
      await store.impactedTargets.set('q', 3, 'cccc', []);
      await store.impactedTargets.set('other', 4, 'dddd', ['//x']);
      const heads = [
        { prNumber: 1, sha: 'aaaa' },
        { prNumber: 2, sha: 'bbbb' },
        { prNumber: 3, sha: 'cccc' },
        { prNumber: 4, sha: 'dddd' },
      ];
      const found = await store.impactedTargets.getMany('q', heads);
      expect([...found.keys()]).to.have.members([headKey(heads[0]!), headKey(heads[1]!), headKey(heads[2]!)]);
      expect(found.get(headKey(heads[0]!))).to.deep.equal(big);
      expect(found.get(headKey(heads[1]!))).to.equal('ALL');
      expect(found.get(headKey(heads[2]!))).to.deep.equal([]);
    });
  });

  describe('test runs and commit statuses', () => {
    const run = (over: Partial<TestRun> = {}): TestRun => ({
      id: 'r1',
      orgId: 'o',
      queueId: 'q',
      kind: 'main',
      entryIds: ['e1'],
      baseEntryIds: [],
      targetSha: 't'.repeat(40),
      branch: 'trunk-merge/pr-1/r1',
      sha: 's'.repeat(40),
      status: 'in_progress',
      requiredStatuses: ['ci'],
      requiredStatusesSource: 'merge_instance',
      deadlineAt: null,
      createdAt: new Date(),
      concludedAt: null,
      conclusionReason: null,
      branchDeleted: false,
      version: 1,
      ...over,
    });

    it('concludes a run exactly once', async () => {
      await store.testRuns.insert(run());
      const [first, second] = await Promise.all([
        store.testRuns.conclude('r1', 'succeeded', 'test_run_passed'),
        store.testRuns.conclude('r1', 'failed', 'test_run_timeout'),
      ]);
      expect([first, second].filter((r) => r !== null)).to.have.length(1);
      expect(await store.testRuns.findInProgressBySha('s'.repeat(40))).to.deep.equal([]);
    });

    it('records a build once, the status watch while the run is in progress, and a deleted branch', async () => {
      await store.testRuns.insert(run({ id: 'r', sha: null }));
      expect(await store.testRuns.recordBuild('r', 'b'.repeat(40), 'f'.repeat(40))).to.include({ sha: 'b'.repeat(40), tree: 'f'.repeat(40), version: 2 });
      expect(await store.testRuns.recordBuild('r', 'c'.repeat(40), 'f'.repeat(40))).to.equal(null);
      const watch = { firedAt: new Date(1000), missing: ['lint'], neverReported: [] };
      expect((await store.testRuns.recordStatusWatch('r', watch))?.statusWatch).to.deep.equal(watch);
      await store.testRuns.conclude('r', 'failed', 'test_run_failed');
      expect(await store.testRuns.recordStatusWatch('r', watch)).to.equal(null);
      await store.testRuns.markBranchDeleted('r');
      await store.testRuns.markBranchDeleted('r');
      expect(await store.testRuns.findById('r')).to.include({ branchDeleted: true, status: 'failed' });
    });

    it("finds the runs of a commit, newest first, and a queue's current and most recent runs", async () => {
      await store.testRuns.insert(run({ id: 'old', status: 'failed', createdAt: new Date(1000) }));
      await store.testRuns.insert(run({ id: 'new', createdAt: new Date(3000) }));
      await store.testRuns.insert(run({ id: 'mid', status: 'succeeded', createdAt: new Date(2000) }));
      await store.testRuns.insert(run({ id: 'other-sha', sha: 'z'.repeat(40), status: 'cancelled', createdAt: new Date(4000) }));
      expect((await store.testRuns.findBySha('s'.repeat(40))).map((r) => r.id)).to.deep.equal(['new', 'mid', 'old']);
      expect((await store.testRuns.listCurrentAndRecent('q', 2)).map((r) => r.id)).to.deep.equal(['new', 'other-sha', 'mid']);
    });

    it('keeps every status report of a commit in arrival order', async () => {
      const base = { orgId: 'o', repoKey: 'github.com/acme/widgets', sha: 'c'.repeat(40), targetUrl: null, description: null };
      await store.commitStatuses.add({ ...base, id: 's1', context: 'ci', state: 'pending', createdAt: new Date(1000) });
      await store.commitStatuses.add({ ...base, id: 's2', context: 'ci', state: 'success', createdAt: new Date(1000) });
      await store.commitStatuses.add({ ...base, id: 's3', context: 'lint', state: 'failure', createdAt: new Date(2000) });
      const all = await store.commitStatuses.forCommit('o', base.repoKey, base.sha);
      expect(all.map((s) => s.id)).to.deep.equal(['s1', 's2', 's3']);
      expect(await store.commitStatuses.forCommit('other-org', base.repoKey, base.sha)).to.deep.equal([]);
      await store.commitStatuses.add({ ...base, sha: 'd'.repeat(40), id: 's4', context: 'ci', state: 'success', createdAt: new Date(3000) });
      const many = await store.commitStatuses.forCommits('o', base.repoKey, [base.sha, 'd'.repeat(40), 'e'.repeat(40)]);
      expect([...many.entries()].map(([sha, list]) => [sha[0], list.map((x) => x.id)])).to.deep.equal([
        ['c', ['s1', 's2', 's3']],
        ['d', ['s4']],
        ['e', []],
      ]);
    });

    it('lists the runs a planning pass needs: open ones, bisections of roots, unbuilt ones, queues with open runs', async () => {
      await store.testRuns.insert(run({ id: 'open' }));
      await store.testRuns.insert(run({ id: 'unbuilt', sha: null }));
      await store.testRuns.insert(run({ id: 'branch-left', status: 'failed' }));
      await store.testRuns.insert(run({ id: 'done', status: 'succeeded', branchDeleted: true }));
      await store.testRuns.insert(run({ id: 'bisect', kind: 'bisection', bisectionOf: 'done', status: 'failed', branchDeleted: true }));
      await store.testRuns.insert(run({ id: 'elsewhere', queueId: 'q2', status: 'failed', branchDeleted: true }));
      const ids = (list: TestRun[]) => list.map((r) => r.id).sort();
      expect(ids(await store.testRuns.listOpen('q'))).to.deep.equal(['branch-left', 'open', 'unbuilt']);
      expect(ids(await store.testRuns.listBisectionsOf('q', ['done']))).to.deep.equal(['bisect']);
      expect(ids(await store.testRuns.listUnbuilt('q'))).to.deep.equal(['unbuilt']);
      expect(ids(await store.testRuns.findByIds(['done', 'elsewhere', 'absent']))).to.deep.equal(['done', 'elsewhere']);
      expect(await store.testRuns.queueIdsWithOpenRuns()).to.deep.equal(['q']);
    });

    it('lists the runs a queue created since a time, newest first, up to a limit (history replays)', async () => {
      for (const [id, minute, queueId] of [
        ['old', 1, 'q'],
        ['a', 10, 'q'],
        ['b', 20, 'q'],
        ['c', 30, 'q'],
        ['other', 25, 'q2'],
      ] as const) {
        await store.testRuns.insert(run({ id, queueId, createdAt: new Date(minute * 60_000) }));
      }
      const ids = (list: TestRun[]) => list.map((r) => r.id);
      expect(ids(await store.testRuns.listCreatedSince('q', new Date(10 * 60_000), 10))).to.deep.equal(['c', 'b', 'a']);
      expect(ids(await store.testRuns.listCreatedSince('q', new Date(10 * 60_000), 2))).to.deep.equal(['c', 'b']);
      expect((await store.testRuns.readCreatedSince('q', new Date(10 * 60_000), 2)).map((r) => r.id)).to.deep.equal(['c', 'b']);
      expect(await store.testRuns.listCreationTimesSince('q', new Date(10 * 60_000), 2)).to.deep.equal([new Date(30 * 60_000), new Date(20 * 60_000)]);
    });
  });
});

forEachDatabase('merge-queue storage', (getDb) => {
  it('keeps a large list of impacted targets in chunks, and a re-upload leaves none of the old ones', async () => {
    const store = createMergeQueueStore(getDb());
    await ensureIndexes(store);
    await store.impactedTargets.set(
      'q',
      7,
      'abcdef1',
      Array.from({ length: 12_345 }, (_, i) => `//pkg/${i}:test`),
    );
    expect(await getDb().collection('impacted_target_chunks').countDocuments({})).to.be.greaterThan(1);
    await store.impactedTargets.set('q', 7, 'abcdef1', ['//only:this']);
    expect(await getDb().collection('impacted_target_chunks').countDocuments({})).to.equal(1);
  });
});

forEachDatabase('platform repositories', (getDb) => {
  let accounts: AccountsStore;
  beforeEach(async () => {
    accounts = createAccountsStore(getDb());
    await ensureIndexes(accounts);
  });

  describe('tokens', () => {
    it('stores only hashes, registers idempotently, authenticates and revokes', async () => {
      const t = await accounts.tokens.register('org1', 'omq_secret-token-value-1234', 'ci');
      const again = await accounts.tokens.register('org1', 'omq_secret-token-value-1234', 'ci');
      expect(again.id).to.equal(t.id);
      const raw = await getDb().collection('api_tokens').find({});
      expect(JSON.stringify(raw)).not.to.include('secret-token-value');
      expect((await accounts.tokens.authenticate('omq_secret-token-value-1234'))?.orgId).to.equal('org1');
      expect(await accounts.tokens.authenticate('omq_secret-token-value-1235')).to.equal(null);
      expect(await accounts.tokens.revoke(t.id)).to.equal(true);
      expect(await accounts.tokens.revoke(t.id)).to.equal(false);
      expect(await accounts.tokens.authenticate('omq_secret-token-value-1234')).to.equal(null);
    });
  });

  describe('webhook endpoints', () => {
    it('hands out at most `concurrency` sending slots at once, each to one delivery, and frees a slot whose lease ended', async () => {
      const endpoints = new DbWebhookEndpointRepository(getDb());
      await endpoints.ensureIndexes();
      const endpoint = await endpoints.create('org1', { url: 'https://hooks.example.test/x', kind: 'standard', events: [], description: '' });
      const now = new Date('2026-01-01T00:00:00Z');
      const until = new Date(now.getTime() + 20_000);
      const taken = await Promise.all(['d1', 'd2', 'd3', 'd4'].map((d) => endpoints.acquireSlot(endpoint.id, 2, d, until, now)));
      expect(taken.filter((s) => s !== null).sort()).to.deep.equal([0, 1]);
      expect(taken.filter((s) => s === null)).to.have.length(2);
      // Releasing needs the holder: another delivery cannot free a slot it does not hold.
      const holderOf0 = ['d1', 'd2', 'd3', 'd4'][taken.indexOf(0)]!;
      await endpoints.releaseSlot(endpoint.id, 0, 'somebody-else');
      expect(await endpoints.acquireSlot(endpoint.id, 2, 'd5', until, now)).to.equal(null);
      await endpoints.releaseSlot(endpoint.id, 0, holderOf0);
      expect(await endpoints.acquireSlot(endpoint.id, 2, 'd5', until, now)).to.equal(0);
      // A sender that died: its lease ends and the slot can be taken again.
      expect(await endpoints.acquireSlot(endpoint.id, 2, 'd6', until, new Date(until.getTime() + 1))).to.equal(0);
      // Slots never show in the endpoint as the services see it.
      expect(Object.keys((await endpoints.findById(endpoint.id))!)).not.to.include('slots');
    });
  });

  describe('organisations', () => {
    it('ensures an organisation once, even when asked concurrently', async () => {
      const orgs = await Promise.all(Array.from({ length: 10 }, () => accounts.orgs.ensure('acme')));
      expect(new Set(orgs.map((o) => o.id)).size).to.equal(1);
      expect((await accounts.orgs.findBySlug('acme'))?.id).to.equal(orgs[0]?.id);
    });
  });
});
