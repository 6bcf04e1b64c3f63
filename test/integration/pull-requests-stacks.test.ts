// Stacks through the queue over real HTTP and real git (issue 25): submitting the top of a chain
// of pull requests queues the members below it, the unit is tested as one run and lands in order
// with each merge method, exactly as tested; a broken chain is refused naming the pull request; a
// member cancelled takes the members above it out; a member pushed to tests the unit again.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { gitText } from '../../shared/providers/local/git-runner.js';
import { pushToPullRequest } from '../../scripts/lib/git-fixtures.js';
import { waitFor } from '../../scripts/lib/wait.js';
import { expectError, makeQueue, SERVICE_OPTIONS, type PrQueue } from './pull-requests-support.js';

/** Publishes a stack: #first is based on main, each next one on the head branch of the one before. */
async function publishStack(q: PrQueue, numbers: number[]): Promise<void> {
  for (const [i, n] of numbers.entries()) {
    const below = numbers[i - 1];
    await q.pr(n, {
      ...(below === undefined ? {} : { base: `refs/pull/${below}/head` }),
      commits: [{ message: `Layer ${n}`, files: { [`layer-${n}.txt`]: `${n}\n` } }],
      metadata: { title: `Layer ${n}`, base: below === undefined ? 'main' : `stack-${below}`, headBranch: `stack-${n}` },
    });
  }
}

describe('pull requests: stacks', function () {
  this.timeout(90_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService(SERVICE_OPTIONS);
  });
  after(async () => {
    await svc.close();
  });

  for (const method of ['merge_commit', 'squash', 'rebase'] as const) {
    it(`submitting the top queues the stack, tests it once and lands every member in order (${method})`, async () => {
      const q = await makeQueue(svc, { settings: { mergeMethod: method } });
      await publishStack(q, [1, 2, 3]);
      await q.submitOk(3);
      for (const n of [1, 2, 3]) expect((await q.entry(n)).stack, `#${n}`).to.include({ position: n, size: 3, id: `${q.queueId}:1` });
      // The API shows each member's place (both answers are checked against the OpenAPI document).
      expect(((await q.get(2)) as unknown as { stack: unknown }).stack).to.deep.equal({ id: `${q.queueId}:1`, position: 2, size: 3, belowPrNumber: 1 });
      const listed = (await q.queue()).enqueuedPullRequests as unknown as { prNumber: number; stack?: { position: number } }[];
      expect(listed.map((e) => [e.prNumber, e.stack?.position])).to.deep.equal([
        [1, 1],
        [2, 2],
        [3, 3],
      ]);

      // One run holds the three members; CI passes it once.
      const run = await q.runOf(3);
      expect(run.entryIds).to.deep.equal(await Promise.all([1, 2, 3].map(async (n) => (await q.entry(n)).id)));
      expect(run.baseEntryIds).to.deep.equal([]);
      await q.ci(3, 'success');
      for (const n of [1, 2, 3]) await q.waitState(n, 'merged');

      // Landed in stack order, each merged on the one below, and main holds exactly the tested tree.
      const merged = await Promise.all([1, 2, 3].map((n) => q.entry(n)));
      expect(merged[1]!.mergedOntoSha).to.equal(merged[0]!.mergedSha);
      expect(merged[2]!.mergedOntoSha).to.equal(merged[1]!.mergedSha);
      const tree = (rev: string) => gitText(['rev-parse', `${rev}^{tree}`], { gitDir: q.fx.dir });
      expect(await tree('main')).to.equal(await tree(run.sha!));
      // Every member is merged at the forge.
      for (const n of [1, 2, 3]) expect(await gitText(['rev-parse', `refs/pull/${n}/merged`], { gitDir: q.fx.dir })).to.equal(merged[n - 1]!.mergedSha);
      if (method !== 'merge_commit') {
        // Squash and rebase land each member's own change only: one layer file per commit.
        const changed = await gitText(['log', '--format=', '--name-only', '--first-parent', `${q.fx.initialSha}..main`], { gitDir: q.fx.dir });
        expect(changed.split('\n').filter(Boolean).reverse()).to.deep.equal(['layer-1.txt', 'layer-2.txt', 'layer-3.txt']);
      }
    });
  }

  it('submitting a middle member queues it and those below it, not those above', async () => {
    const q = await makeQueue(svc, { settings: { state: 'paused' } });
    await publishStack(q, [1, 2, 3]);
    await q.submitOk(2);
    expect((await q.entry(1)).stack).to.include({ position: 1, size: 2 });
    expect((await q.entry(2)).stack).to.include({ position: 2, size: 2 });
    expect(await q.svc.ctx.mergeQueue.store.entries.findActiveByPr(q.queueId, 3)).to.equal(null);
  });

  it('a chain that ends on another branch is refused, naming the pull request at fault', async () => {
    const q = await makeQueue(svc);
    await q.pr(1, { metadata: { base: 'develop', headBranch: 'stack-1' } });
    await q.pr(2, { base: 'refs/pull/1/head', metadata: { base: 'stack-1', headBranch: 'stack-2' } });
    const body = expectError(await q.submit(2), 400, 'stack_base_unknown');
    expect(body.error.message).to.equal('pull request #1 is based on develop, which is neither main nor the head branch of an open pull request');
  });

  it('cancelling a member takes the members above it out, naming it; the one below stays', async () => {
    const q = await makeQueue(svc);
    await publishStack(q, [1, 2, 3]);
    await q.submitOk(3);
    await q.runOf(3);
    expect((await q.cancel(2)).status).to.equal(200);
    const above = await q.waitState(3, 'cancelled');
    expect(above.state).to.equal('cancelled');
    const e3 = await q.entry(3);
    expect(e3.lastReason).to.equal('stack_member_removed');
    expect(e3.history.at(-1)!.detail).to.equal('PR #2 below it in its stack left the queue');
    // #1 is tested again on its own and lands.
    await q.waitState(1, 'testing');
    await q.ci(1, 'success');
    await q.waitState(1, 'merged');
  });

  it('a push to a member under test restarts the whole stack (pr_pushed_to naming it), which lands with the new head', async () => {
    const q = await makeQueue(svc);
    await publishStack(q, [1, 2, 3]);
    await q.submitOk(3);
    const first = await q.runOf(3);
    await pushToPullRequest(q.fx, 2, [{ message: 'Layer 2, reviewed', files: { 'layer-2-fix.txt': 'fix\n' } }]);
    await q.sync();

    const pushed = await q.entry(2);
    expect(
      pushed.history.find((h) => h.reason === 'pr_pushed_to'),
      '#2',
    ).to.deep.include({ from: 'testing', to: 'not_ready' });
    expect(pushed.prSha).to.equal(await gitText(['rev-parse', 'refs/pull/2/head'], { gitDir: q.fx.dir }));
    for (const n of [1, 3]) {
      const restart = await waitFor(`#${n} restarted`, async () => (await q.entry(n)).history.find((h) => h.reason === 'pr_pushed_to'));
      expect(restart, `#${n}`).to.deep.include({ from: 'testing', to: 'pending', detail: 'PR #2 in the same test run was pushed to' });
    }
    expect((await svc.ctx.mergeQueue.store.testRuns.findById(first.id))?.status).to.equal('cancelled');

    // The unit is tested again as one run, with #2's new head, and lands exactly as tested.
    const second = await q.runOf(3);
    expect(second.id).to.not.equal(first.id);
    expect(second.entryIds).to.deep.equal(await Promise.all([1, 2, 3].map(async (n) => (await q.entry(n)).id)));
    await q.ci(3, 'success');
    for (const n of [1, 2, 3]) await q.waitState(n, 'merged');
    const tree = (rev: string) => gitText(['rev-parse', `${rev}^{tree}`], { gitDir: q.fx.dir });
    expect(await tree('main')).to.equal(await tree(second.sha!));
    expect(await gitText(['show', 'main:layer-2-fix.txt'], { gitDir: q.fx.dir })).to.equal('fix');
  });
});
