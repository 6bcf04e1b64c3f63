// Queue administration over real HTTP (spec §4.1, wire-contract §2.8–§2.11), with every error
// case, and every 200 body checked against the OpenAPI document.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { expectOpenApiResponse } from '../helpers/openapi.js';
import { createRepo, DEFAULT_REPO } from '../../scripts/lib/git-fixtures.js';
import { DEFAULT_QUEUE_SETTINGS } from '../../shared/merge-queue/domain/model.js';
import { makeEntry } from '../../scripts/lib/entries.js';

const repo = DEFAULT_REPO;
const ref = { repo, targetBranch: 'main' };

interface ErrorBody {
  error: { code: string; message: string; details: { path: string; message: string }[]; requestId: string };
}

describe('queue administration', function () {
  let svc: TestService;

  beforeEach(async () => {
    svc = await startTestService();
    await createRepo(svc.gitRoot, { repo });
  });
  afterEach(async () => {
    await svc.close();
  });

  describe('createQueue', () => {
    it('creates a queue with documented defaults and answers {}', async () => {
      const res = await svc.post('/createQueue', ref);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({});
      expectOpenApiResponse('/createQueue', res.body);

      const got = await svc.post<Record<string, unknown>>('/getQueue', ref);
      expect(got.status).to.equal(200);
      expectOpenApiResponse('/getQueue', got.body);
      expect(got.body).to.deep.include({
        state: 'running',
        branch: 'main',
        mode: 'single',
        concurrency: 1,
        bisectionConcurrency: 1,
        directMergeMode: 'off',
        optimizationMode: 'off',
        batch: false,
        canOptimisticallyMerge: false,
        pendingFailureDepth: 0,
        testingTimeoutMinutes: DEFAULT_QUEUE_SETTINGS.testingTimeoutMinutes,
        mergeMethod: DEFAULT_QUEUE_SETTINGS.mergeMethod,
        requiredStatuses: [],
        statusWaitMinutes: 15,
        enqueuedPullRequests: [],
        warnings: [],
      });
      // Fields the live API returns that clients parse as required.
      for (const key of [
        'extensionEnabled',
        'allowedBotSubmitters',
        'batchingRules',
        'testBranchConstructionMode',
        'enqueueingLabel',
        'labelCommandsEnabled',
        'stateLabelsEnabled',
        'notReadyTimeoutHours',
      ]) {
        expect(got.body, key).to.have.property(key);
      }
      expect(got.body.allowedBotSubmitters).to.deep.equal([]);
      expect(got.body.batchingRules).to.deep.equal([]);
      expect(got.body).not.to.have.property('repo');
    });

    it('accepts mode and concurrency, in any letter case', async () => {
      const res = await svc.post('/createQueue', { ...ref, mode: 'PARALLEL', concurrency: 3 });
      expect(res.status).to.equal(200);
      const got = await svc.post<Record<string, unknown>>('/getQueue', ref);
      expect(got.body).to.deep.include({ mode: 'parallel', concurrency: 3, bisectionConcurrency: 3 });
    });

    it('answers 409 when the branch already has a queue', async () => {
      expect((await svc.post('/createQueue', ref)).status).to.equal(200);
      const res = await svc.post<ErrorBody>('/createQueue', ref);
      expect(res.status).to.equal(409);
      expect(res.body.error.code).to.equal('queue_exists');
    });

    it('answers 404 for an unknown repository or branch', async () => {
      const r1 = await svc.post<ErrorBody>('/createQueue', { repo: { ...repo, name: 'nope' }, targetBranch: 'main' });
      expect(r1.status).to.equal(404);
      expect(r1.body.error.code).to.equal('repository_not_found');
      const r2 = await svc.post<ErrorBody>('/createQueue', { repo, targetBranch: 'release' });
      expect(r2.status).to.equal(404);
      expect(r2.body.error.code).to.equal('branch_not_found');
    });

    it('rejects invalid bodies with 400 naming each bad field by JSON pointer', async () => {
      const cases: [unknown, string][] = [
        [{ targetBranch: 'main' }, '/repo'],
        [{ repo: { host: 'github.com', owner: 'acme' }, targetBranch: 'main' }, '/repo/name'],
        [{ repo, targetBranch: { $ne: null } }, '/targetBranch'],
        [{ repo: { ...repo, owner: { $gt: '' } }, targetBranch: 'main' }, '/repo/owner'],
        [{ ...ref, concurrency: 0 }, '/concurrency'],
        [{ ...ref, concurrency: '2' }, '/concurrency'],
        [{ ...ref, mode: 'serial' }, '/mode'],
        [{ ...ref, batch: true }, '/batch'],
        [{ ...ref, targetBranch: '../etc' }, '/targetBranch'],
      ];
      for (const [body, pointer] of cases) {
        const res = await svc.post<ErrorBody>('/createQueue', body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.error.code).to.equal('invalid_request');
        expect(
          res.body.error.details.map((d) => d.path),
          JSON.stringify(body),
        ).to.include(pointer);
      }
    });
  });

  describe('getQueue', () => {
    it('answers 404 for an unknown queue', async () => {
      const res = await svc.post<ErrorBody>('/getQueue', ref);
      expect(res.status).to.equal(404);
      expect(res.body.error.code).to.equal('queue_not_found');
    });
  });

  describe('updateQueue', () => {
    beforeEach(async () => {
      expect((await svc.post('/createQueue', ref)).status).to.equal(200);
    });

    it('updates only the given settings and answers the queue without enqueuedPullRequests', async () => {
      const res = await svc.post<Record<string, unknown>>('/updateQueue', {
        ...ref,
        concurrency: 5,
        canOptimisticallyMerge: true,
        pendingFailureDepth: 2,
        batch: true,
        batchingMinSize: 4,
        batchingMaxWaitTimeMinutes: 10,
        mergeMethod: 'MERGE_COMMIT',
        optimizationMode: 'bisection_skip_redundant_tests',
        directMergeMode: 'always',
        testingTimeoutMinutes: 0,
        requiredStatuses: ['ci/test', 'ci/lint', 'ci/test'],
        enqueueingLabel: 'merge-me',
        notReadyTimeoutHours: 24,
        statusWaitMinutes: 45,
        allowedBotSubmitters: ['renovate[bot]'],
      });
      expect(res.status).to.equal(200);
      expectOpenApiResponse('/updateQueue', res.body);
      expect(res.body).not.to.have.property('enqueuedPullRequests');
      expect(res.body).to.deep.include({
        concurrency: 5,
        canOptimisticallyMerge: true,
        pendingFailureDepth: 2,
        batch: true,
        mergeMethod: 'merge_commit',
        directMergeMode: 'always',
        testingTimeoutMinutes: 0,
        requiredStatuses: ['ci/test', 'ci/lint'],
        enqueueingLabel: 'merge-me',
        mode: 'single',
        state: 'running',
      });
      const got = await svc.post<Record<string, unknown>>('/getQueue', ref);
      expect(got.body).to.deep.include({ concurrency: 5, notReadyTimeoutHours: 24, statusWaitMinutes: 45, allowedBotSubmitters: ['renovate[bot]'] });
    });

    it('sets the queue state to paused, draining and back to running', async () => {
      for (const state of ['paused', 'DRAINING', 'running']) {
        const res = await svc.post<Record<string, unknown>>('/updateQueue', { ...ref, state });
        expect(res.status).to.equal(200);
        expect(res.body.state).to.equal(state.toLowerCase());
      }
    });

    it('refuses switching_modes as a state a client sets', async () => {
      const res = await svc.post<ErrorBody>('/updateQueue', { ...ref, state: 'switching_modes' });
      expect(res.status).to.equal(400);
      expect(res.body.error.details[0]?.path).to.equal('/state');
    });

    it('range-checks every value', async () => {
      const bad: Record<string, unknown>[] = [
        { concurrency: 0 },
        { concurrency: 1001 },
        { bisectionConcurrency: 0 },
        { testingTimeoutMinutes: -1 },
        { pendingFailureDepth: -1 },
        { batchingMinSize: 0 },
        { batchingMinSize: 101 },
        { batchingMaxWaitTimeMinutes: 1.5 },
        { mergeMethod: 'fast_forward' },
        { requiredStatuses: 'ci' },
        { requiredStatuses: [''] },
        { notReadyTimeoutHours: -2 },
        { statusWaitMinutes: 0 },
        { statusWaitMinutes: 1441 },
        { canOptimisticallyMerge: 'yes' },
        { unknownSetting: true },
      ];
      for (const patch of bad) {
        const res = await svc.post<ErrorBody>('/updateQueue', { ...ref, ...patch });
        expect(res.status, JSON.stringify(patch)).to.equal(400);
        // The pointer names the field, or the element inside it that is wrong.
        expect(res.body.error.details[0]?.path, JSON.stringify(patch)).to.match(new RegExp(`^/${Object.keys(patch)[0]}(/|$)`));
      }
    });

    it('flakyRetries and notItsFaultRetries (0–5, default 1), testResultsWaitSeconds (0–1800, default 120): returned, updated, range-checked', async () => {
      const before = await svc.post<Record<string, unknown>>('/getQueue', ref);
      expect(before.body).to.deep.include({ flakyRetries: 1, notItsFaultRetries: 1, testResultsWaitSeconds: 120 });
      const res = await svc.post<Record<string, unknown>>('/updateQueue', { ...ref, flakyRetries: 0, notItsFaultRetries: 5, testResultsWaitSeconds: 1800 });
      expect(res.status).to.equal(200);
      expectOpenApiResponse('/updateQueue', res.body);
      expect(res.body).to.deep.include({ flakyRetries: 0, notItsFaultRetries: 5, testResultsWaitSeconds: 1800 });
      const got = await svc.post<Record<string, unknown>>('/getQueue', ref);
      expect(got.body).to.deep.include({ flakyRetries: 0, notItsFaultRetries: 5, testResultsWaitSeconds: 1800 });
      for (const patch of [
        { flakyRetries: 6 },
        { flakyRetries: -1 },
        { flakyRetries: 1.5 },
        { notItsFaultRetries: 6 },
        { notItsFaultRetries: -1 },
        { testResultsWaitSeconds: 1801 },
        { testResultsWaitSeconds: -1 },
      ]) {
        const bad = await svc.post<ErrorBody>('/updateQueue', { ...ref, ...patch });
        expect(bad.status, JSON.stringify(patch)).to.equal(400);
        expect(bad.body.error.details[0]?.path, JSON.stringify(patch)).to.equal(`/${Object.keys(patch)[0]}`);
      }
    });

    it('stackFailure (land_passing_prefix by default, or land_nothing, any letter case): returned, updated, checked', async () => {
      expect((await svc.post<Record<string, unknown>>('/getQueue', ref)).body).to.deep.include({ stackFailure: 'land_passing_prefix' });
      const res = await svc.post<Record<string, unknown>>('/updateQueue', { ...ref, stackFailure: 'LAND_NOTHING' });
      expect(res.status).to.equal(200);
      expectOpenApiResponse('/updateQueue', res.body);
      expect((await svc.post<Record<string, unknown>>('/getQueue', ref)).body).to.deep.include({ stackFailure: 'land_nothing' });
      const bad = await svc.post<ErrorBody>('/updateQueue', { ...ref, stackFailure: 'land_some' });
      expect(bad.status).to.equal(400);
      expect(bad.body.error.details[0]?.path).to.equal('/stackFailure');
      expect((await svc.post('/updateQueue', { ...ref, stackFailure: 'land_passing_prefix' })).status).to.equal(200);
    });

    it('clears required statuses with deleteRequiredStatuses and ignores an empty list', async () => {
      await svc.post('/updateQueue', { ...ref, requiredStatuses: ['ci/test'] });
      const ignored = await svc.post<Record<string, unknown>>('/updateQueue', { ...ref, requiredStatuses: [] });
      expect(ignored.body.requiredStatuses).to.deep.equal(['ci/test']);
      const cleared = await svc.post<Record<string, unknown>>('/updateQueue', { ...ref, deleteRequiredStatuses: true });
      expect(cleared.body.requiredStatuses).to.deep.equal([]);
      const queue = await svc.ctx.mergeQueue.store.queues.find(svc.orgId, repo, 'main');
      expect(queue?.requiredStatuses).to.equal(null);
    });

    it('switches mode at once when nothing is in flight', async () => {
      const res = await svc.post<Record<string, unknown>>('/updateQueue', { ...ref, mode: 'parallel' });
      expect(res.body).to.deep.include({ mode: 'parallel', state: 'running' });
    });

    it('goes through switching_modes when pull requests are in flight, and refuses mode/state changes meanwhile', async () => {
      const queue = await svc.ctx.mergeQueue.store.queues.find(svc.orgId, repo, 'main');
      await svc.ctx.mergeQueue.store.entries.insert(makeEntry({ orgId: svc.orgId, queueId: queue!.id, state: 'testing' }));
      const res = await svc.post<Record<string, unknown>>('/updateQueue', { ...ref, mode: 'parallel' });
      expect(res.body).to.deep.include({ mode: 'single', state: 'switching_modes' });
      const again = await svc.post<ErrorBody>('/updateQueue', { ...ref, state: 'paused' });
      expect(again.status).to.equal(409);
      expect(again.body.error.code).to.equal('mode_change_in_progress');
      const other = await svc.post<Record<string, unknown>>('/updateQueue', { ...ref, concurrency: 2 });
      expect(other.status).to.equal(200);
      expect(other.body).to.deep.include({ concurrency: 2, state: 'switching_modes' });
    });

    it('answers 404 for an unknown queue', async () => {
      const res = await svc.post<ErrorBody>('/updateQueue', { ...ref, targetBranch: 'other', concurrency: 2 });
      expect(res.status).to.equal(404);
    });
  });

  describe('deleteQueue', () => {
    it('deletes an empty queue, then answers 404', async () => {
      await svc.post('/createQueue', ref);
      const res = await svc.post('/deleteQueue', ref);
      expect(res.status).to.equal(200);
      expectOpenApiResponse('/deleteQueue', res.body);
      expect((await svc.post('/getQueue', ref)).status).to.equal(404);
      expect((await svc.post('/deleteQueue', ref)).status).to.equal(404);
    });

    it('refuses a queue that still holds pull requests with 400 queue_not_empty and deletes nothing', async () => {
      await svc.post('/createQueue', ref);
      const queue = await svc.ctx.mergeQueue.store.queues.find(svc.orgId, repo, 'main');
      await svc.ctx.mergeQueue.store.entries.insert(makeEntry({ orgId: svc.orgId, queueId: queue!.id, prNumber: 7, state: 'pending' }));
      const res = await svc.post<ErrorBody>('/deleteQueue', ref);
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('queue_not_empty');
      expect((await svc.post('/getQueue', ref)).status).to.equal(200);
    });
  });

  describe('organisations', () => {
    it("hides one organisation's queues from another's token (404, as if absent)", async () => {
      await svc.post('/createQueue', ref);
      const other = await svc.addOrg('other-org');
      for (const path of ['/getQueue', '/deleteQueue']) {
        const res = await svc.post<ErrorBody>(path, ref, { token: other.token });
        expect(res.status, path).to.equal(404);
      }
      const upd = await svc.post('/updateQueue', { ...ref, concurrency: 9 }, { token: other.token });
      expect(upd.status).to.equal(404);
      // The other organisation may create its own queue for the same repository branch.
      expect((await svc.post('/createQueue', ref, { token: other.token })).status).to.equal(200);
      const mine = await svc.post<Record<string, unknown>>('/getQueue', ref);
      expect(mine.body.concurrency).to.equal(1);
    });
  });
});
