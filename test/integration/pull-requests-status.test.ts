// getSubmittedPullRequest over real HTTP (issue 3; wire-contract §2.1, §2.5): every field of the
// merge item record, lookup by number and by head branch, the timeline, and every error case.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { expectConsistentHistory, expectError, makeQueue, SERVICE_OPTIONS, UUID, type SubmittedBody } from './pull-requests-support.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The keys clients of the live API parse, and the one this service adds (restartCount). */
const RECORD_KEYS = [
  'id',
  'state',
  'readiness',
  'stateChangedAt',
  'priorityValue',
  'priorityName',
  'usedDefaultPriorityName',
  'skipTheLine',
  'noBatch',
  'forceEnqueued',
  'isCurrentlySubmittedToQueue',
  'verifiedByTestRun',
  'restartCount',
  'prNumber',
  'prTitle',
  'prSha',
  'prBaseBranch',
  'prAuthor',
];

describe('pull requests: getSubmittedPullRequest', function () {
  this.timeout(60_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService(SERVICE_OPTIONS);
  });
  after(async () => {
    await svc.close();
  });

  it('returns every field of the merge item record, verifiedByTestRun null until a run verifies the merge', async () => {
    const q = await makeQueue(svc);
    const head = await q.pr(1, { metadata: { title: 'Spin faster', author: 'carol', headBranch: 'carol/spin' } });
    await q.submitOk(1, { priority: 'high', noBatch: true });
    const testing = await q.waitState(1, 'testing');
    expect(Object.keys(testing)).to.have.members(RECORD_KEYS);
    expect(testing.id).to.match(UUID);
    expect(testing.stateChangedAt).to.match(ISO_MS);
    expect(testing).to.deep.include({
      state: 'testing',
      priorityValue: 10,
      priorityName: 'high',
      usedDefaultPriorityName: 'high',
      skipTheLine: false,
      noBatch: true,
      forceEnqueued: false,
      isCurrentlySubmittedToQueue: true,
      verifiedByTestRun: null,
      restartCount: 0,
      prNumber: 1,
      prTitle: 'Spin faster',
      prSha: head,
      prBaseBranch: 'main',
      prAuthor: 'carol',
    });
    expect(testing.readiness).to.deep.equal({
      hasImpactedTargets: false,
      requiresImpactedTargets: false,
      doesBaseBranchMatch: true,
      gitHubMergeability: 'mergeable',
    });

    const run = await q.ci(1, 'success');
    const merged = await q.waitState(1, 'merged');
    expect(Object.keys(merged)).to.have.members(RECORD_KEYS);
    expect(merged.verifiedByTestRun).to.equal(run.id);
    expect(merged.isCurrentlySubmittedToQueue).to.equal(false);
    expect(merged.id).to.equal(testing.id);
  });

  it('includeTimeline: every transition, newest first, with time, state, previous state, reason and detail', async () => {
    const q = await makeQueue(svc);
    await q.pr(1);
    await q.submitOk(1);
    const run = await q.ci(1, 'success');
    await q.waitState(1, 'merged');
    const s = await q.get(1, { timeline: true });
    const timeline = s.timeline ?? [];
    expect(timeline.map((t) => [t.previousState, t.state, t.reason])).to.deep.equal([
      ['tests_passed', 'merged', 'merge_graph_merge'],
      ['testing', 'tests_passed', 'test_run_passed'],
      ['pending', 'testing', 'test_run_started'],
      ['not_ready', 'pending', 'merge_item_now_ready'],
      [null, 'not_ready', 'api_requested'],
    ]);
    for (const t of timeline) {
      expect(t.timestamp).to.match(ISO_MS);
      expect(t.detail, JSON.stringify(t)).to.be.a('string').and.not.equal('');
    }
    for (let i = 1; i < timeline.length; i++) {
      expect(Date.parse(timeline[i - 1]!.timestamp), 'newest first').to.be.at.least(Date.parse(timeline[i]!.timestamp));
    }
    expect(timeline[0]!.timestamp).to.equal(s.stateChangedAt);
    expect(timeline.filter((t) => t.testRunId).map((t) => [t.state, t.testRunId])).to.deep.equal([
      ['merged', run.id],
      ['tests_passed', run.id],
      ['testing', run.id],
    ]);
    // Without includeTimeline (or with false) there is none.
    expect(await q.get(1)).not.to.have.property('timeline');
    const off = await q.getRaw({ number: 1 }, { includeTimeline: false });
    expect(off.body).not.to.have.property('timeline');
    expectConsistentHistory(await q.entry(1));
  });

  it('returns the latest entry after a resubmission; the earlier one stays in the store', async () => {
    const q = await makeQueue(svc, { settings: { state: 'paused' } });
    await q.pr(1);
    await q.submitOk(1);
    const first = await q.get(1);
    expect((await q.cancel(1)).status).to.equal(200);
    const ended = await q.get(1, { timeline: true });
    expect(ended.id).to.equal(first.id);
    expect(ended).to.deep.include({ state: 'cancelled', isCurrentlySubmittedToQueue: false });
    expect(ended.timeline?.[0]?.detail).to.match(/API/);
    await q.submitOk(1, { priority: 'low' });
    const second = await q.get(1, { timeline: true });
    expect(second.id).not.to.equal(first.id);
    expect(second).to.deep.include({ state: 'not_ready', priorityName: 'low', isCurrentlySubmittedToQueue: true });
    expect(second.timeline, 'the timeline is the entry’s own').to.have.length(1);
  });

  describe('pr.branch', () => {
    it('finds the entry of the pull request whose head branch that is', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      await q.pr(1, { metadata: { headBranch: 'feature/one' } });
      await q.pr(2, { metadata: { headBranch: 'feature/two' } });
      await q.submitOk(1);
      await q.submitOk(2);
      const res = await q.getRaw({ branch: 'feature/two' }, { includeTimeline: true });
      expect(res.status).to.equal(200);
      const body = res.body as SubmittedBody;
      expect(body.prNumber).to.equal(2);
      expect(body.timeline).to.have.length(1);
      expect(((await q.getRaw({ branch: 'feature/one' })).body as SubmittedBody).prNumber).to.equal(1);
    });

    it('prefers an active entry, else the latest one', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      // Two pull requests from the same branch (the first was closed and a new one opened).
      await q.pr(4, { metadata: { headBranch: 'shared' } });
      await q.pr(5, { metadata: { headBranch: 'shared' } });
      await q.submitOk(4);
      await q.submitOk(5);
      expect((await q.cancel(5)).status).to.equal(200);
      const active = (await q.getRaw({ branch: 'shared' })).body as SubmittedBody;
      expect(active).to.deep.include({ prNumber: 4, state: 'not_ready' });

      expect((await q.cancel(4)).status).to.equal(200);
      const latest = (await q.getRaw({ branch: 'shared' })).body as SubmittedBody;
      expect(latest).to.deep.include({ prNumber: 5, state: 'cancelled' });

      await q.submitOk(4);
      const again = (await q.getRaw({ branch: 'shared' })).body as SubmittedBody;
      expect(again).to.deep.include({ prNumber: 4, state: 'not_ready' });
    });

    it('404 for a branch no submitted pull request comes from (or a pull request without a known head branch)', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      await q.pr(1);
      await q.submitOk(1);
      expectError(await q.getRaw({ branch: 'nobody' }), 404, 'pull_request_not_submitted');
      await q.pr(2, { metadata: { headBranch: 'not-submitted' } });
      expectError(await q.getRaw({ branch: 'not-submitted' }), 404, 'pull_request_not_submitted');
    });
  });

  describe('errors', () => {
    it('404 when never submitted, the pull request does not exist, or the queue is unknown', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      await q.pr(1);
      expectError(await q.getRaw({ number: 1 }), 404, 'pull_request_not_submitted');
      expectError(await q.getRaw({ number: 424242 }), 404, 'pull_request_not_submitted');
      expectError(await q.getRaw({ number: 0 }), 404, 'pull_request_not_submitted');
      expectError(await svc.post('/getSubmittedPullRequest', { ...q.ref, targetBranch: 'release', pr: { number: 1 } }), 404, 'queue_not_found');
      await q.submitOk(1);
      const other = await svc.addOrg(`status-${Date.now()}`);
      expectError(await svc.post('/getSubmittedPullRequest', { ...q.ref, pr: { number: 1 } }, { token: other.token }), 404, 'queue_not_found');
    });

    it('400 for bad shapes', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      const cases: unknown[] = [
        {},
        { number: 1, branch: 'x' },
        { number: '1' },
        { number: -1 },
        { branch: '' },
        { branch: '../x' },
        { branch: { $ne: null } },
        { sha: 'abc' },
      ];
      for (const pr of cases) expectError(await q.getRaw(pr as Record<string, unknown>), 400, 'invalid_request', JSON.stringify(pr));
      expectError(await q.getRaw({ number: 1 }, { includeTimeline: 'yes' }), 400, 'invalid_request');
      expectError(await svc.post('/getSubmittedPullRequest', q.ref), 400, 'invalid_request');
    });

    it('accepts includeEstimatedTimeToMerge', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      await q.pr(1);
      await q.submitOk(1);
      const res = await q.getRaw({ number: 1 }, { includeEstimatedTimeToMerge: true });
      expect(res.status).to.equal(200);
    });
  });
});
