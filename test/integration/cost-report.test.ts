// getQueueCostReport through the service on a real repository: the report adds up with the runs the
// store recorded, and each wasted run is attributed to what cancelled it. (Its answer is checked
// against the service's own OpenAPI document by openapi-document.test.ts.)
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { expectError, makeQueue, SERVICE_OPTIONS, type PrQueue } from './pull-requests-support.js';
import { waitFor } from '../../scripts/lib/wait.js';
import { gaugeValue, parseExposition } from '../helpers/prometheus-text.js';

interface CauseBody {
  cause: string;
  runs: number;
  ciMinutes: number;
  examples: { testRunId: string; testBranch: string; reason: string | null; detail: string | null; ciMinutes: number }[];
}
interface ReportBody {
  testRunsStarted: number;
  ciMinutes: number;
  mergedPullRequests: number;
  testRunsPerMergedPr: number | null;
  ciMinutesPerMergedPr: number | null;
  wasted: { runs: number; ciMinutes: number; byCause: CauseBody[] };
}

describe('getQueueCostReport', function () {
  this.timeout(120_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService(SERVICE_OPTIONS);
  });
  after(async () => {
    await svc.close();
  });

  async function report(q: PrQueue, extra: Record<string, unknown> = {}): Promise<ReportBody> {
    const res = await svc.post<ReportBody>('/getQueueCostReport', { ...q.ref, ...extra });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  }

  it('counts runs per merged pull request and attributes a failure ahead, a restart and an urgent preemption', async () => {
    const q = await makeQueue(svc, { concurrency: 2 });
    for (const n of [1, 2]) await q.pr(n);
    await q.submitOk(1);
    await q.submitOk(2);
    const run2 = await q.runOf(2);
    expect(run2.baseEntryIds, '#2 is tested on top of #1').to.have.length(1);
    // #1 fails: #2's run, built on it, is wasted by a failure ahead.
    await q.ci(1, 'failure');
    await q.waitState(1, 'failed');
    await waitFor('#2 re-tested without #1', async () => ((await q.runOf(2)).id !== run2.id ? true : undefined));
    // A restart by request wastes #2's second run.
    const second = await q.runOf(2);
    expect((await q.restart(2)).status).to.equal(200);
    await waitFor('#2 tested a third time', async () => ((await q.runOf(2)).id !== second.id ? true : undefined));
    // An urgent pull request preempts #2's third run (one slot, so it must make room).
    const third = await q.runOf(2);
    await q.update({ concurrency: 1 });
    await q.pr(3);
    await q.submitOk(3, { priority: 'urgent' });
    await waitFor('#2 preempted', async () => ((await svc.ctx.mergeQueue.store.testRuns.findById(third.id))?.status === 'cancelled' ? true : undefined));
    await q.ci(3, 'success');
    await q.waitState(3, 'merged');
    await q.ci(2, 'success');
    await q.waitState(2, 'merged');

    const r = await report(q);
    const runs = await svc.ctx.mergeQueue.store.testRuns.listCreatedSince(q.queueId, new Date(0), 1000);
    expect(r.testRunsStarted).to.equal(runs.length);
    expect(r.mergedPullRequests).to.equal(2);
    expect(r.testRunsPerMergedPr).to.equal(Math.round((runs.length / 2) * 100) / 100);
    const cancelled = runs.filter((x) => x.status === 'cancelled');
    expect(r.wasted.runs).to.equal(cancelled.length);
    expect(r.wasted.byCause.reduce((n, c) => n + c.runs, 0)).to.equal(r.wasted.runs);
    const by = Object.fromEntries(r.wasted.byCause.map((c) => [c.cause, c]));
    expect(by.failure_ahead?.examples.map((e) => e.testRunId)).to.deep.equal([run2.id]);
    expect(by.failure_ahead?.examples[0]?.detail).to.include('#1');
    expect(by.restart_by_request?.examples.map((e) => e.testRunId)).to.deep.equal([second.id]);
    expect(by.urgent_preemption?.examples.map((e) => e.testRunId)).to.deep.equal([third.id]);
    expect(by.urgent_preemption?.examples[0]?.detail).to.include('#3');
    expect(r.ciMinutes).to.be.at.least(r.wasted.ciMinutes);

    // The same causes as a rolling one-hour metric, counted from the timelines.
    const scraped = await svc.raw('GET', `/v1/getMergeQueueMetrics?repo=${q.ref.repo.owner}/${q.ref.repo.name}&repoHost=github.com`, {
      headers: { 'x-api-token': svc.token },
    });
    const exposition = parseExposition(scraped.body as string);
    const labels = { repo: `${q.ref.repo.owner}/${q.ref.repo.name}`, branch: 'main', queue_type: 'main' };
    for (const cause of ['failure_ahead', 'restart_by_request', 'urgent_preemption']) {
      expect(gaugeValue(exposition, 'mq_test_runs_wasted_1h', { ...labels, cause }), cause).to.equal(1);
    }
    expect(gaugeValue(exposition, 'mq_test_runs_wasted_1h', { ...labels, cause: 'timeout' })).to.equal(0);

    // A window before anything happened holds nothing.
    const before = await report(q, { since: '2020-01-01T00:00:00Z', until: '2020-01-02T00:00:00Z' });
    expect([before.testRunsStarted, before.mergedPullRequests, before.testRunsPerMergedPr, before.wasted.byCause]).to.deep.equal([0, 0, null, []]);
  });

  it('refuses a window that ends before it starts or spans more than 90 days', async () => {
    const q = await makeQueue(svc);
    expectError(await svc.post('/getQueueCostReport', { ...q.ref, since: '2026-02-01T00:00:00Z', until: '2026-01-01T00:00:00Z' }), 400, 'invalid_window');
    expectError(await svc.post('/getQueueCostReport', { ...q.ref, since: '2025-01-01T00:00:00Z', until: '2026-01-01T00:00:00Z' }), 400, 'invalid_window');
    expectError(await svc.post('/getQueueCostReport', { ...q.ref, since: 'yesterday' }), 400, 'invalid_request');
    expectError(await svc.post('/getQueueCostReport', { ...q.ref, targetBranch: 'nope' }), 404, 'queue_not_found');
  });
});
