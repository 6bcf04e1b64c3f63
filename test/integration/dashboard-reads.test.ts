// The dashboard's read endpoints over HTTP: who the token is, the organisation's queues with
// counts, a queue's test runs with the pull requests they test and build on, and its health.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { ORG, REPO, junit, sha, unhealthy, uploadOk } from './flaky-support.js';
import { SERVICE_OPTIONS, expectError, makeQueue, type PrQueue } from './pull-requests-support.js';

interface QueueItem {
  repo: { host: string; owner: string; name: string };
  targetBranch: string;
  state: string;
  mode: string;
  counts: Record<string, number>;
  mergedLast24h: number[];
}

interface RunItem {
  id: string;
  status: string;
  testedPrs: number[];
  basePrs: number[];
  testBranch: string;
}

describe('dashboard reads', function () {
  let svc: TestService;
  let q: PrQueue;

  before(async () => {
    svc = await startTestService(SERVICE_OPTIONS);
    q = await makeQueue(svc, { concurrency: 2 });
  });
  after(async () => {
    await svc.close();
  });

  it('getTokenInfo names the token’s organisation, name and role; a missing token is a 401', async () => {
    const mine = await svc.post<{ organization: { slug: string }; token: { name: string; role: string } }>('/getTokenInfo', {});
    expect(mine.body.organization).to.deep.equal({ slug: 'default' });
    expect(mine.body.token.role).to.equal('admin');
    const other = await svc.addOrg('other-org');
    expect((await svc.post<{ organization: unknown }>('/getTokenInfo', {}, { token: other.token })).body.organization).to.deep.equal({ slug: 'other-org' });
    const reader = await svc.post<{ token: string }>('/createToken', { name: 'wallboard', role: 'read' });
    expect((await svc.post('/getTokenInfo', {}, { token: reader.body.token })).body).to.deep.equal({
      organization: { slug: 'default' },
      token: { name: 'wallboard', role: 'read' },
    });
    expectError(await svc.post('/getTokenInfo', {}, { token: null }), 401, 'missing_token');
    expectError(await svc.post('/getTokenInfo', { org: 'x' }), 400, 'invalid_request');
  });

  it('listQueues and listTestRuns show the queue, its counts, and each run on its predicted base', async () => {
    await q.pr(1);
    await q.pr(2);
    await q.submitOk(1);
    await q.submitOk(2);
    await q.waitState(1, 'testing');
    await q.waitState(2, 'testing');
    const { queues } = (await svc.post<{ queues: QueueItem[] }>('/listQueues', {})).body;
    const mine = queues.find((x) => x.repo.name === q.ref.repo.name)!;
    expect(mine).to.deep.include({ targetBranch: 'main', state: 'running', mode: 'single' });
    expect(mine.counts).to.deep.include({ testing: 2, pending: 0, not_ready: 0, merged: 0 });
    expect(mine.mergedLast24h).to.have.length(24);
    // Another organisation sees none of it.
    const other = await svc.addOrg('third-org');
    expect((await svc.post<{ queues: QueueItem[] }>('/listQueues', {}, { token: other.token })).body.queues).to.deep.equal([]);

    const { testRuns } = (await svc.post<{ testRuns: RunItem[] }>('/listTestRuns', q.ref)).body;
    const byPr = new Map(testRuns.map((r) => [r.testedPrs.join(','), r]));
    expect(byPr.get('1')).to.deep.include({ status: 'in_progress', basePrs: [] });
    expect(byPr.get('2')).to.deep.include({ status: 'in_progress', basePrs: [1] });
    expect(byPr.get('2')!.testBranch).to.match(/^trunk-merge\/pr-2\//);
    expectError(await svc.post('/listTestRuns', { ...q.ref, targetBranch: 'nope' }), 404, 'queue_not_found');
  });

  it('getQueueHealth counts merges, failures by reason, test runs and time in queue in its window', async () => {
    await q.ci(1, 'success');
    await q.waitState(1, 'merged');
    await q.ci(2, 'failure');
    await q.waitState(2, 'failed');
    const res = await svc.post<{
      merged: number;
      testRuns: number;
      ciRunsPerMergedPr: number;
      failuresByReason: { reason: string; count: number }[];
      buckets: { merged: number; timeInQueueP50: number | null }[];
    }>('/getQueueHealth', { ...q.ref, windowHours: 2, buckets: 4 });
    expect(res.status).to.equal(200);
    expect(res.body.merged).to.equal(1);
    expect(res.body.failuresByReason).to.deep.equal([{ reason: 'test_run_required_status_failed', count: 1 }]);
    expect(res.body.testRuns).to.be.at.least(2);
    expect(res.body.ciRunsPerMergedPr).to.equal(res.body.testRuns);
    expect(res.body.buckets).to.have.length(4);
    const last = res.body.buckets[3]!;
    expect(last.merged).to.equal(1);
    expect(last.timeInQueueP50).to.be.a('number').and.at.least(0);
    expectError(await svc.post('/getQueueHealth', { ...q.ref, windowHours: 0 }), 400, 'invalid_request');
  });

  it('flaky-tests/get-test-history gives the status changes and the runs of each day', async () => {
    await uploadOk(svc, { commit_sha: sha(7) }, [{ name: 'a.xml', data: junit({ test_a: 'f' }) }]);
    await uploadOk(svc, { commit_sha: sha(7) }, [{ name: 'a.xml', data: junit({ test_a: 'p' }) }]);
    const [test] = (await unhealthy(svc, 'FLAKY')).tests;
    const res = await svc.post<{
      status_history: { from: string; to: string; reason: string }[];
      daily_runs: { day: string; passed: number; failed: number }[];
    }>('/flaky-tests/get-test-history', { repo: REPO, org_url_slug: ORG, test_id: test!.id, days: 3 });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.status_history).to.have.length(1);
    expect(res.body.status_history[0]).to.deep.include({ from: 'healthy', to: 'flaky' });
    expect(res.body.daily_runs.map((d) => d.day)).to.deep.equal([2, 1, 0].map((n) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10)));
    expect(res.body.daily_runs[2]).to.deep.include({ passed: 1, failed: 1 });
    const other = await svc.addOrg('fourth-org');
    expectError(
      await svc.post('/flaky-tests/get-test-history', { repo: REPO, org_url_slug: ORG, test_id: test!.id }, { token: other.token }),
      404,
      'organization_not_found',
    );
  });

  it('html_url names the host of a repository outside github.com, so the dashboard finds it', async () => {
    const repo = { host: 'git.example.com', owner: 'acme', name: 'tools' };
    await uploadOk(svc, { repo, commit_sha: sha(8) }, [{ name: 'a.xml', data: junit({ test_a: 'f' }) }]);
    await uploadOk(svc, { repo, commit_sha: sha(8) }, [{ name: 'a.xml', data: junit({ test_a: 'p' }) }]);
    const [test] = (await unhealthy(svc, 'FLAKY', { repo })).tests;
    expect(test!.html_url).to.equal(`${svc.url}/${ORG}/flaky-tests/test/${test!.id}?repo=acme%2Ftools&host=git.example.com`);
  });
});
