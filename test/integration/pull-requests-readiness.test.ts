// Readiness, admission and the provider poller over real git repositories (issue 3;
// merge-queue-behaviour §1.6, §1.18 rows 3–5, 20): base branch, mergeability computed by git
// on real conflicting commits, impacted targets in parallel mode, admission and demotion, and
// what pushes, closes, drafts and retargets do to a queued pull request.
import { expect } from 'chai';
import { rename, rm } from 'node:fs/promises';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { pushToBranch, pushToPullRequest, resolve, setRef, writePullMetadata } from '../../scripts/lib/git-fixtures.js';
import { gitText } from '../../shared/providers/local/git-runner.js';
import { waitFor } from '../../scripts/lib/wait.js';
import { expectConsistentHistory, makeQueue, SERVICE_OPTIONS, type PrQueue } from './pull-requests-support.js';
import { planExclusively, planIdle } from '../helpers/planning.js';

/** main and pull requests both edit the second line of shared.txt (created by makeQueue). */
const lines = (two: string) => `one\n${two}\nthree\n`;

describe('pull requests: readiness, admission and provider changes', function () {
  this.timeout(60_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService(SERVICE_OPTIONS);
  });
  after(async () => {
    await svc.close();
  });

  /** A pull request editing line two of shared.txt from main's first commit. */
  function conflictingPr(q: PrQueue, n: number, two: string): Promise<string> {
    return q.pr(n, { base: q.fx.initialSha, commits: [{ message: `Line two is ${two}`, files: { 'shared.txt': lines(two) } }] });
  }

  describe('gitHubMergeability (git merge machinery on real commits)', () => {
    it('a submission answers before git is asked: in_progress until the planning pass decides it', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      await q.pr(1);
      const plans = svc.ctx.jobs.queue('plan');
      await plans.pause();
      try {
        expect((await q.submit(1)).status).to.equal(200);
        expect((await q.get(1)).readiness).to.deep.equal({
          doesBaseBranchMatch: true,
          gitHubMergeability: 'in_progress',
          requiresImpactedTargets: false,
          hasImpactedTargets: false,
        });
        expect((await q.entry(1)).readinessBasis).to.equal(null);
      } finally {
        await plans.resume();
      }
      await q.mergeabilityDecided(1);
      const decided = await q.entry(1);
      expect(decided.readiness.gitHubMergeability).to.equal('mergeable');
      expect(decided.readinessBasis).to.deep.equal({ targetSha: q.fx.initialSha, headSha: decided.prSha, mode: 'single' });
      expect(decided.state).to.equal('not_ready');
    });

    it('not_mergeable for a pull request that conflicts with the target head; it waits in not_ready', async () => {
      const q = await makeQueue(svc);
      await pushToBranch(q.fx, 'main', [{ message: 'main edits line two', files: { 'shared.txt': lines('TWO (main)') } }]);
      await conflictingPr(q, 1, 'TWO (pr)');
      await q.pr(2);
      await q.submitOk(1);
      await q.submitOk(2);
      await q.waitState(2, 'testing');
      const s = await q.get(1);
      expect(s.state).to.equal('not_ready');
      expect(s.readiness).to.deep.equal({
        doesBaseBranchMatch: true,
        gitHubMergeability: 'not_mergeable',
        requiresImpactedTargets: false,
        hasImpactedTargets: false,
      });
      // A pull request on an old base that touches other files still merges cleanly.
      await q.pr(3, { base: q.fx.initialSha });
      await q.submitOk(3);
      expect((await q.get(3)).readiness.gitHubMergeability).to.equal('mergeable');
    });

    it('is re-evaluated when the target moves: the conflict resolved on main admits it (merge_item_now_ready)', async () => {
      const q = await makeQueue(svc);
      await pushToBranch(q.fx, 'main', [{ message: 'main edits line two', files: { 'shared.txt': lines('TWO (main)') } }]);
      await conflictingPr(q, 1, 'TWO (pr)');
      await q.submitOk(1);
      await planExclusively(svc, q.queueId);
      expect((await q.get(1)).state).to.equal('not_ready');
      // main makes the same change as the pull request: the merge is clean again.
      await pushToBranch(q.fx, 'main', [{ message: 'main agrees', files: { 'shared.txt': lines('TWO (pr)') } }]);
      await q.sync();
      const admitted = await q.waitState(1, 'testing');
      expect(admitted.readiness.gitHubMergeability).to.equal('mergeable');
      const e = await q.entry(1);
      expect(e.history.map((h) => h.reason)).to.deep.equal(['api_requested', 'merge_item_now_ready', 'test_run_started']);
    });

    it('a pending entry that stops merging cleanly goes back to not_ready (merge_item_no_longer_ready), and returns when fixed', async () => {
      // Concurrency 1 and a required status nobody reports: #1 keeps testing, #2 waits in pending.
      const q = await makeQueue(svc);
      await q.pr(1);
      await conflictingPr(q, 2, 'TWO (pr)');
      await q.submitOk(1);
      await q.submitOk(2);
      await q.runOf(1);
      await q.waitState(2, 'pending');

      await pushToBranch(q.fx, 'main', [{ message: 'main edits line two', files: { 'shared.txt': lines('TWO (main)') } }]);
      await q.sync();
      const demoted = await q.waitState(2, 'not_ready');
      expect(demoted.readiness.gitHubMergeability).to.equal('not_mergeable');
      expect((await q.entry(2)).history.at(-1)).to.deep.include({ from: 'pending', to: 'not_ready', reason: 'merge_item_no_longer_ready' });
      // The run ahead is rebuilt on the new target head; #1 stays in the queue.
      await waitFor('#1 restarted on the new head', async () => (await q.entry(1)).history.some((h) => h.reason === 'manual_push_to_target_branch'));
      await q.runOf(1);
      expect((await q.queue()).enqueuedPullRequests.map((p) => [p.prNumber, p.state])).to.deep.equal([
        [1, 'testing'],
        [2, 'not_ready'],
      ]);

      await pushToBranch(q.fx, 'main', [{ message: 'main agrees', files: { 'shared.txt': lines('TWO (pr)') } }]);
      await q.sync();
      await q.waitState(2, 'pending');
      expect((await q.entry(2)).history.slice(-1)[0]).to.deep.include({ from: 'not_ready', to: 'pending', reason: 'merge_item_now_ready' });
      for (const n of [1, 2]) expectConsistentHistory(await q.entry(n));
    });
  });

  describe('doesBaseBranchMatch (base from pulls/N.json)', () => {
    it('a stacked pull request waits until it is retargeted to the queue branch, then is admitted', async () => {
      const q = await makeQueue(svc);
      await pushToBranch(q.fx, 'feature/base', [{ message: 'parent change', files: { 'parent.txt': 'p\n' } }]);
      await q.pr(1, { base: 'feature/base', metadata: { base: 'feature/base', title: 'Child' } });
      await q.submitOk(1);
      await planExclusively(svc, q.queueId);
      const waiting = await q.get(1);
      expect(waiting).to.deep.include({ state: 'not_ready', prBaseBranch: 'feature/base' });
      expect(waiting.readiness.doesBaseBranchMatch).to.equal(false);

      await writePullMetadata(q.fx, 1, { base: 'main', title: 'Child' });
      await q.sync();
      const admitted = await q.waitState(1, 'testing');
      expect(admitted.prBaseBranch).to.equal('main');
      expect(admitted.readiness.doesBaseBranchMatch).to.equal(true);
    });

    it('retargeting a pending entry away from the queue branch sends it back to not_ready', async () => {
      const q = await makeQueue(svc);
      await q.pr(1);
      await q.pr(2, { metadata: { base: 'main' } });
      await q.submitOk(1);
      await q.submitOk(2);
      await q.runOf(1);
      await q.waitState(2, 'pending');
      await writePullMetadata(q.fx, 2, { base: 'release' });
      await q.sync();
      const back = await q.waitState(2, 'not_ready');
      expect(back).to.deep.include({ prBaseBranch: 'release' });
      expect(back.readiness.doesBaseBranchMatch).to.equal(false);
    });

    it('retargeting an entry being tested cancels it (pr_base_branch_changed)', async () => {
      const q = await makeQueue(svc);
      await q.pr(1, { metadata: { base: 'main' } });
      await q.submitOk(1);
      await q.runOf(1);
      await writePullMetadata(q.fx, 1, { base: 'release' });
      await q.sync();
      expect((await q.get(1)).state).to.equal('cancelled');
      expect((await q.entry(1)).lastReason).to.equal('pr_base_branch_changed');
    });
  });

  describe('requiresImpactedTargets', () => {
    it('is true in parallel mode and false in single mode', async () => {
      const single = await makeQueue(svc, { settings: { state: 'paused' } });
      await single.pr(1);
      await single.submitOk(1);
      expect((await single.get(1)).readiness.requiresImpactedTargets).to.equal(false);
      const parallel = await makeQueue(svc, { mode: 'parallel', settings: { state: 'paused' } });
      await parallel.pr(1);
      await parallel.submitOk(1);
      expect((await parallel.get(1)).readiness.requiresImpactedTargets).to.equal(true);
    });

    it('follows a mode change of the queue (re-evaluated by the provider poll)', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      await q.pr(1);
      await q.submitOk(1);
      await q.update({ mode: 'parallel' });
      await q.sync();
      expect((await q.get(1)).readiness.requiresImpactedTargets).to.equal(true);
      await q.update({ state: 'running' });
      await planExclusively(svc, q.queueId);
      expect((await q.get(1)).state, 'no targets, no admission').to.equal('not_ready');
    });

    // Known issue (reported with issue 3): updateQueue does not re-evaluate readiness when the
    // mode changes at once (no run in flight), so until the next provider poll the stored
    // readiness still says requiresImpactedTargets=false and a planning pass can admit entries
    // without targets. Needs queue-service to refresh readiness (syncQueue) on a mode change.
    it('a mode change applies to readiness before the next admission, without waiting for a poll', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      await q.pr(1);
      await q.submitOk(1);
      await q.update({ mode: 'parallel' });
      await q.update({ state: 'running' });
      await planExclusively(svc, q.queueId);
      const s = await q.get(1);
      expect(s.readiness.requiresImpactedTargets).to.equal(true);
      expect(s.state, 'no targets, no admission').to.equal('not_ready');
    });
  });

  describe('changes at the provider', () => {
    it('a push to a queued pull request cancels it (pr_pushed_to) in not_ready, pending and testing', async () => {
      const q = await makeQueue(svc);
      for (const n of [1, 2, 3]) await q.pr(n);
      await q.submitOk(1);
      await q.submitOk(2);
      const run = await q.runOf(1);
      await q.waitState(2, 'pending');
      await q.update({ state: 'paused' });
      await planIdle(svc);
      await q.submitOk(3);
      for (const n of [1, 2, 3]) await pushToPullRequest(q.fx, n, [{ message: `fixup ${n}`, files: { [`fix-${n}.txt`]: 'x\n' } }]);
      await q.sync();
      for (const [n, from] of [
        [1, 'testing'],
        [2, 'pending'],
        [3, 'not_ready'],
      ] as const) {
        const e = await q.entry(n);
        expect(e.state, `#${n}`).to.equal('cancelled');
        expect(e.history.at(-1), `#${n}`).to.deep.include({ from, to: 'cancelled', reason: 'pr_pushed_to' });
        expect(e.history.at(-1)?.detail).to.match(/head moved/);
        expectConsistentHistory(e);
      }
      await waitFor('#1 run cancelled', async () => (await svc.ctx.mergeQueue.store.testRuns.findById(run.id))?.status === 'cancelled');
      expect((await q.queue()).enqueuedPullRequests).to.deep.equal([]);
    });

    it('a closed pull request is cancelled (pr_closed); so is one whose ref was deleted', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      await q.pr(1, { metadata: { title: 'to close' } });
      await q.pr(2);
      await q.submitOk(1);
      await q.submitOk(2);
      await writePullMetadata(q.fx, 1, { title: 'to close', state: 'closed' });
      await gitText(['update-ref', '-d', 'refs/pull/2/head'], { gitDir: q.fx.dir });
      await q.sync();
      expect((await q.entry(1)).history.at(-1)).to.deep.include({ to: 'cancelled', reason: 'pr_closed' });
      expect((await q.entry(2)).history.at(-1)).to.deep.include({ to: 'cancelled', reason: 'pr_closed' });
    });

    it('a pull request converted to a draft is cancelled (pr_converted_to_draft)', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      await q.pr(1, { metadata: { draft: false } });
      await q.submitOk(1);
      await writePullMetadata(q.fx, 1, { draft: true });
      await q.sync();
      expect((await q.entry(1)).history.at(-1)).to.deep.include({ to: 'cancelled', reason: 'pr_converted_to_draft' });
    });

    it('a pull request merged outside the queue ends merged (manual_merge)', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      const head = await q.pr(1);
      await q.submitOk(1);
      await setRef(q.fx, 'refs/heads/main', head);
      await setRef(q.fx, 'refs/pull/1/merged', head);
      await q.sync();
      const s = await q.get(1);
      expect(s).to.deep.include({ state: 'merged', isCurrentlySubmittedToQueue: false, verifiedByTestRun: null });
      expect((await q.entry(1)).lastReason).to.equal('manual_merge');
    });

    it('a poll that finds nothing changed writes nothing', async () => {
      const q = await makeQueue(svc);
      await q.pr(1);
      await q.pr(2);
      await q.submitOk(1);
      await q.submitOk(2);
      await q.runOf(1);
      await q.waitState(2, 'pending');
      await q.sync();
      const before = await q.entries();
      await q.sync();
      await q.sync();
      const after = await q.entries();
      expect(after.map((e) => [e.id, e.version, e.state])).to.deep.equal(before.map((e) => [e.id, e.version, e.state]));
    });

    it('one pull request with broken metadata does not stop the others from being synced', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      for (const n of [1, 2, 3]) await q.pr(n);
      for (const n of [1, 2, 3]) await q.submitOk(n);
      await writePullMetadata(q.fx, 1, { state: 'merged-ish' });
      await writePullMetadata(q.fx, 3, { state: 'closed' });
      await pushToPullRequest(q.fx, 2, [{ message: 'more', files: { 'more.txt': 'm\n' } }]);
      await q.sync();
      expect((await q.entry(1)).state, 'the broken one is left as it is').to.equal('not_ready');
      expect((await q.entry(2)).lastReason).to.equal('pr_pushed_to');
      expect((await q.entry(3)).lastReason).to.equal('pr_closed');
      await rm(`${q.fx.dir}/pulls/1.json`);
    });

    it('a repository that disappeared leaves its entries alone', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      await q.pr(1);
      await q.submitOk(1);
      const moved = `${q.fx.dir}.gone`;
      await rename(q.fx.dir, moved);
      try {
        await q.sync();
        expect((await q.entry(1)).state).to.equal('not_ready');
      } finally {
        await rename(moved, q.fx.dir);
      }
      expect(await resolve(q.fx, 'refs/pull/1/head')).to.match(/^[0-9a-f]{40}$/);
    });
  });
});
