// The stall watchdog through the service: a built run schedules its delayed look; when required
// statuses were never reported, the pull request's timeline and getQueue's warnings say which and
// how to fix it, and both clear once CI reports.
import { expect } from 'chai';
import { Queue } from 'bullmq';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createRedis } from '../../shared/platform/jobs/connection.js';
import { CI, makeQueue, SERVICE_OPTIONS } from './pull-requests-support.js';
import { expectOpenApiResponse } from '../helpers/openapi.js';
import { gaugeValue, parseExposition } from '../helpers/prometheus-text.js';

interface WarningBody {
  code: string;
  message: string;
  contexts: string[];
  testRunIds: string[];
  since: string;
}

describe('stall watchdog', function () {
  this.timeout(60_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService(SERVICE_OPTIONS);
  });
  after(async () => {
    await svc.close();
  });

  async function warnings(ref: object): Promise<WarningBody[]> {
    const res = await svc.post<{ warnings: WarningBody[] }>('/getQueue', ref);
    expect(res.status).to.equal(200);
    expectOpenApiResponse('/getQueue', res.body);
    return res.body.warnings;
  }

  async function stalledRunsGauge(repo: { owner: string; name: string }): Promise<number | undefined> {
    const res = await svc.raw('GET', `/v1/getMergeQueueMetrics?repo=${repo.owner}/${repo.name}&repoHost=github.com`, { headers: { 'x-api-token': svc.token } });
    expect(res.status).to.equal(200);
    const e = parseExposition(res.body as string);
    return gaugeValue(e, 'mq_test_runs_status_not_reported', { repo: `${repo.owner}/${repo.name}`, branch: 'main', queue_type: 'main' });
  }

  it('schedules a look statusWaitMinutes after the build, warns with the fix, notes the timeline, and clears when CI reports', async () => {
    const q = await makeQueue(svc, { settings: { requiredStatuses: [CI, 'lint'], statusWaitMinutes: 7 } });
    await q.pr(1);
    await q.submitOk(1);
    const run = await q.runOf(1);

    const connection = createRedis(process.env.REDIS_URL as string, 'worker');
    const jobs = new Queue('status-watch', { connection, prefix: svc.ctx.config.bullPrefix });
    try {
      const job = await jobs.getJob(`status-watch-${run.id}`);
      const { requestId, ...payload } = (job?.data ?? {}) as Record<string, unknown>;
      expect(payload).to.deep.equal({ queueId: q.queueId, testRunId: run.id });
      expect(requestId, 'the job carries the id of the request or job that scheduled it').to.be.a('string').and.not.equal('');
      expect(job!.timestamp + job!.delay - Date.now(), 'due about 7 minutes from now').to.be.within(6 * 60_000, 7 * 60_000 + 1000);
    } finally {
      await jobs.close();
      connection.disconnect();
    }
    expect(await warnings(q.ref)).to.deep.equal([]);

    // The job's look, as it runs when due: only `ci` was reported, as pending.
    expect((await svc.post('/setCommitStatus', { repo: q.ref.repo, sha: run.sha, context: CI, state: 'pending' })).status).to.equal(200);
    expect(await svc.ctx.mergeQueue.services.statusWatch.check(run.id, new Date(Date.now() + 7 * 60_000))).to.deep.equal(['lint']);

    const found = await warnings(q.ref);
    expect(found.map((w) => [w.code, w.contexts, w.testRunIds])).to.deep.equal([
      ['required_status_never_reported', ['lint'], [run.id]],
      ['required_status_not_reported', ['lint'], [run.id]],
    ]);
    expect(found[0]!.message).to.include('trunk-merge/**');
    expect(await stalledRunsGauge(q.ref.repo)).to.equal(1);
    const timeline = (await q.get(1, { timeline: true })).timeline ?? [];
    const note = timeline.find((t) => t.reason === 'required_status_not_reported');
    expect(note?.state).to.equal('testing');
    expect(note?.detail).to.include('"lint"');
    expect(note?.testRunId).to.equal(run.id);

    expect((await svc.post('/setCommitStatus', { repo: q.ref.repo, sha: run.sha, context: 'lint', state: 'pending' })).status).to.equal(200);
    expect(await warnings(q.ref)).to.deep.equal([]);
    expect(await stalledRunsGauge(q.ref.repo)).to.equal(0);
    expect((await q.entry(1)).state, 'the run still waits for its verdict').to.equal('testing');
  });
});
