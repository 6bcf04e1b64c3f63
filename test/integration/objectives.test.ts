// Queue objectives over real HTTP: set and checked through updateQueue, measured by the watcher
// in virtual time (its clock is passed in), entered only after their hold, each change announced
// once to webhooks, shown by getQueue. Only loopback is contacted.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { expectOpenApiResponse } from '../helpers/openapi.js';
import { createRepo, DEFAULT_REPO } from '../../scripts/lib/git-fixtures.js';
import { makeQueue } from './pull-requests-support.js';
import { LOOPBACK_RECEIVERS_ALLOWED, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../../scripts/lib/wait.js';

const repo = DEFAULT_REPO;
const ref = { repo, targetBranch: 'main' };
const MINUTE = 60_000;

interface ObjectiveStatusBody {
  objectiveStatus: { metric: string; level: string; value: number | null; pending: { level: string } | null }[];
}

describe('queue objectives', function () {
  let svc: TestService;
  let receiver: WebhookReceiver;

  beforeEach(async () => {
    svc = await startTestService({ startWorkers: true, env: LOOPBACK_RECEIVERS_ALLOWED });
    await createRepo(svc.gitRoot, { repo });
    expect((await svc.post('/createQueue', ref)).status).to.equal(200);
    receiver = await startWebhookReceiver();
    expect(
      (await svc.post('/createWebhookEndpoint', { url: receiver.url, events: ['queue.objective_breached', 'queue.objective_recovered'] })).status,
    ).to.equal(200);
  });
  afterEach(async () => {
    await receiver.close();
    await svc.close();
  });

  it('refuses objectives it cannot use, naming each problem', async () => {
    const res = await svc.post<{ error: { details: { path: string }[] } }>('/updateQueue', {
      ...ref,
      objectives: [
        { metric: 'head_age', warning: 10, critical: 30 },
        { metric: 'head_age', warning: 60, critical: 30 },
      ],
    });
    expect(res.status).to.equal(400);
    expect(res.body.error.details.map((d) => d.path)).to.deep.equal(['/objectives/1/metric', '/objectives/1/critical']);
    expect((await svc.post('/updateQueue', { ...ref, objectives: [{ metric: 'p99', warning: 1, critical: 2 }] })).status).to.equal(400);
  });

  it('breaches once the measure held the level for forMinutes, recovers the same way, and says so once each', async () => {
    const q = await makeQueue(svc);
    const set = await svc.post<{ objectives: unknown[] }>('/updateQueue', {
      ...q.ref,
      objectives: [{ metric: 'head_age', warning: 10, critical: 30, forMinutes: 5 }],
    });
    expect(set.status).to.equal(200);
    expectOpenApiResponse('/updateQueue', set.body);
    expect(set.body.objectives).to.deep.equal([{ metric: 'head_age', warning: 10, critical: 30, windowHours: 24, forMinutes: 5 }]);
    const evaluate = async (at: number) =>
      svc.ctx.mergeQueue.services.objectives.evaluate((await svc.ctx.mergeQueue.store.queues.findById(q.queueId))!, new Date(at));

    // The head of the queue: a pull request under test (CI never reports here), looked at 45 minutes on.
    await q.pr(1);
    await q.submitOk(1);
    await q.waitState(1, 'testing');
    const t0 = (await q.entry(1)).submittedAt.getTime() + 45 * MINUTE;

    // Critical now, but not for 5 minutes yet: pending, nothing announced.
    await evaluate(t0);
    const pending = await svc.post<ObjectiveStatusBody>('/getQueue', q.ref);
    expectOpenApiResponse('/getQueue', pending.body);
    expect(pending.body.objectiveStatus.map((s) => [s.metric, s.level, s.value, s.pending?.level])).to.deep.equal([['head_age', 'ok', 45, 'critical']]);
    await evaluate(t0 + 3 * MINUTE);
    await evaluate(t0 + 5 * MINUTE);
    await evaluate(t0 + 6 * MINUTE);
    // The head leaves: ok again, entered after 5 more minutes.
    expect((await svc.post('/cancelPullRequest', { ...q.ref, pr: { number: 1 } })).status).to.equal(200);
    await evaluate(t0 + 7 * MINUTE);
    await evaluate(t0 + 12 * MINUTE);
    await evaluate(t0 + 13 * MINUTE);

    const received = await waitFor('two events', async () => receiver.received.length >= 2 && receiver.received);
    expect(received.map((r) => [r.json.type, (r.json.objective as { level: string }).level])).to.deep.equal([
      ['queue.objective_breached', 'critical'],
      ['queue.objective_recovered', 'ok'],
    ]);
    expect(received[0]!.json.objective).to.deep.include({
      metric: 'head_age',
      unit: 'minutes',
      warning: 10,
      critical: 30,
      windowHours: 24,
      since: new Date(t0).toISOString(),
    });
    const after = await svc.post<ObjectiveStatusBody>('/getQueue', q.ref);
    expect(after.body.objectiveStatus.map((s) => [s.level, s.value, s.pending])).to.deep.equal([['ok', 0, null]]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.length, 'announced once each').to.equal(2);

    // Removing the objectives clears their levels.
    expect((await svc.post('/updateQueue', { ...q.ref, objectives: [] })).status).to.equal(200);
    await evaluate(t0 + 14 * MINUTE);
    expect((await svc.post<ObjectiveStatusBody>('/getQueue', q.ref)).body.objectiveStatus).to.deep.equal([]);
  });
});
