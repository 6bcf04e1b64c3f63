// The merge-queue series from the histories the engine itself writes: a pull request submitted,
// tested on a real git repository, passed by CI and merged shows up as one merge, one wait, one
// test duration and one time in queue.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createPullRequest, createRepo, DEFAULT_REPO, type FixtureRepo } from '../../scripts/lib/git-fixtures.js';
import { waitFor } from '../../scripts/lib/wait.js';
import { gaugeValue, histogramValue, parseExposition, type Exposition } from '../helpers/prometheus-text.js';

const repo = DEFAULT_REPO;
const ref = { repo, targetBranch: 'main' };

describe('merge-queue metrics of an engine-driven merge', function () {
  this.timeout(60_000);
  let svc: TestService;
  let fx: FixtureRepo;

  beforeEach(async () => {
    svc = await startTestService({ startWorkers: true });
    fx = await createRepo(svc.gitRoot, { repo, files: { 'README.md': '# widgets\n' } });
    expect((await svc.post('/createQueue', ref)).status).to.equal(200);
    expect((await svc.post('/updateQueue', { ...ref, requiredStatuses: ['ci/test'] })).status).to.equal(200);
  });
  afterEach(async () => {
    await svc.close();
  });

  async function metrics(): Promise<Exposition> {
    const res = await svc.raw('GET', `/v1/getMergeQueueMetrics?repo=${repo.owner}/${repo.name}&repoHost=${repo.host}`, {
      headers: { 'x-api-token': svc.token },
    });
    expect(res.status).to.equal(200);
    return parseExposition(res.body as string);
  }

  it('counts the merge, its wait, its test and its time in queue', async () => {
    const main = { repo: `${repo.owner}/${repo.name}`, branch: 'main', queue_type: 'main' };
    await createPullRequest(fx, { number: 1, commits: [{ message: 'Add b', files: { 'b.txt': 'b\n' } }] });
    expect((await svc.post('/submitPullRequest', { ...ref, pr: { number: 1 } })).status).to.equal(200);

    const sha = await waitFor('test branch built', async () => {
      const s = await svc.post<{ state: string; timeline?: { state: string; testRunId?: string }[] }>('/getSubmittedPullRequest', {
        ...ref,
        pr: { number: 1 },
        includeTimeline: true,
      });
      const runId = s.body.timeline?.find((t) => t.state === 'testing')?.testRunId;
      if (!runId) return undefined;
      const d = await svc.post<{ testBranchSha: string }>('/getMergeQueueTestingDetails', { ...ref, testRunId: runId });
      // Empty until the test branch is built.
      return d.body.testBranchSha || undefined;
    });
    const during = await metrics();
    expect(gaugeValue(during, 'mq_depth_current', main)).to.equal(1);
    expect(gaugeValue(during, 'mq_testing_slots_active', main)).to.equal(1);
    expect(histogramValue(during, 'mq_pr_wait_duration_1h_seconds', main)?.count).to.equal(1);

    const status = await svc.post('/setCommitStatus', { repo, sha, context: 'ci/test', state: 'success' });
    expect(status.status, JSON.stringify(status.body)).to.equal(200);
    const after = await waitFor('the merge in the metrics', async () => {
      const e = await metrics();
      return gaugeValue(e, 'mq_pr_conclusions_1h_total', { ...main, conclusion: 'merged' }) === 1 ? e : undefined;
    });
    expect(gaugeValue(after, 'mq_depth_current', main)).to.equal(0);
    expect(gaugeValue(after, 'mq_testing_slots_active', main)).to.equal(0);
    expect(gaugeValue(after, 'mq_pr_restarts_1h_total', main)).to.equal(0);
    expect(histogramValue(after, 'mq_pr_test_duration_1h_seconds', main)?.count).to.equal(1);
    const inQueue = histogramValue(after, 'mq_pr_time_in_queue_1h_seconds', main);
    expect(inQueue?.count).to.equal(1);
    expect(inQueue?.buckets['60']).to.equal(1);
  });
});
