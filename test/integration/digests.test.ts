// The queue digest over real HTTP: set and checked through updateQueue, sent by the digest sender
// once its period has ended (its clock is passed in), once per period to webhooks, with what the
// queue did in the period; getQueueDigest answers it on demand. Only loopback is contacted.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { makeQueue } from './pull-requests-support.js';
import { LOOPBACK_RECEIVERS_ALLOWED, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../../scripts/lib/wait.js';

const MINUTE = 60_000;

interface DigestBody {
  cadence: string;
  from: string;
  to: string;
  merged: { count: number; timeInQueueMinutes: { p50: number | null } };
  ejected: { count: number; byVerdict: Record<string, number> };
  testRuns: { started: number };
  objectives: { metric: string; met: boolean }[];
  flakyTests: unknown[];
}

describe('queue digests', function () {
  let svc: TestService;
  let receiver: WebhookReceiver;

  beforeEach(async () => {
    svc = await startTestService({ startWorkers: true, env: LOOPBACK_RECEIVERS_ALLOWED });
    receiver = await startWebhookReceiver();
    expect((await svc.post('/createWebhookEndpoint', { url: receiver.url, events: ['queue.digest'] })).status).to.equal(200);
  });
  afterEach(async () => {
    await receiver.close();
    await svc.close();
  });

  it('refuses a digest it cannot use, and stores, shows and audits one it can', async () => {
    const q = await makeQueue(svc);
    const bad = await svc.post<{ error: { details: { path: string }[] } }>('/updateQueue', {
      ...q.ref,
      digest: { cadence: 'daily', timeZone: 'Mars/Olympus' },
    });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.details.map((d) => d.path)).to.deep.equal(['/digest/timeZone']);
    expect((await svc.post('/updateQueue', { ...q.ref, digest: { cadence: 'hourly' } })).status).to.equal(400);
    const set = await svc.post<{ digest: unknown }>('/updateQueue', { ...q.ref, digest: { cadence: 'weekly', day: 'fri', timeZone: 'Asia/Tokyo' } });
    expect(set.status).to.equal(200);
    expect(set.body.digest).to.deep.equal({ cadence: 'weekly', at: '09:00', day: 'fri', timeZone: 'Asia/Tokyo' });
    expect((await svc.post<{ digest: unknown }>('/getQueue', q.ref)).body.digest).to.deep.equal(set.body.digest);
    const audit = await svc.post<{ events: { action: string; detail: Record<string, unknown> }[] }>('/listAuditEvents', {});
    expect(JSON.stringify(audit.body.events.find((e) => e.action === 'queue.updated')?.detail)).to.contain('"cadence":"weekly"');
    const preview = await svc.post<{ digest: DigestBody | null }>('/getQueueDigest', q.ref);
    expect(preview.status).to.equal(200);
    expect(preview.body.digest?.cadence).to.equal('weekly');
    expect(new Date(preview.body.digest!.to).getTime() - new Date(preview.body.digest!.from).getTime()).to.equal(7 * 24 * 60 * MINUTE);
    expect((await svc.post('/updateQueue', { ...q.ref, digest: null })).status).to.equal(200);
    expect((await svc.post<{ digest: unknown }>('/getQueueDigest', q.ref)).body).to.deep.equal({ digest: null });
  });

  it("sends the period's digest once it has ended, once, with what was merged and ejected and the objectives measured over it", async () => {
    const q = await makeQueue(svc, { concurrency: 2 });
    // The period ends two minutes from now (UTC), so what the queue does now falls in it.
    const end = new Date(Math.ceil((Date.now() + 2 * MINUTE) / MINUTE) * MINUTE);
    const hhmm = end.toISOString().slice(11, 16);
    await q.update({ digest: { cadence: 'daily', at: hhmm }, objectives: [{ metric: 'time_in_queue_p50', warning: 600, critical: 1200 }] });
    await q.pr(1);
    await q.pr(2);
    await q.submitOk(1);
    await q.submitOk(2);
    await q.ci(1, 'success');
    await q.waitState(1, 'merged');
    await q.ci(2, 'failure');
    await q.waitState(2, 'failed');

    const digests = svc.ctx.mergeQueue.services.digests;
    expect(await digests.sendDue(new Date(end.getTime() - MINUTE)), 'before the period ends, the one before it: nothing happened then').to.equal(1);
    expect(await digests.sendDue(new Date(end.getTime() + 5 * MINUTE))).to.equal(1);
    expect(await digests.sendDue(new Date(end.getTime() + 6 * MINUTE)), 'the same period again').to.equal(0);

    const received = await waitFor('two digests', async () => receiver.received.length >= 2 && receiver.received);
    const [earlier, latest] = received.map((r) => r.json.digest as DigestBody);
    expect(earlier!.merged.count).to.equal(0);
    expect(latest!.to).to.equal(end.toISOString());
    expect(latest!.merged.count).to.equal(1);
    expect(latest!.merged.timeInQueueMinutes.p50).to.be.a('number');
    expect(latest!.ejected.count).to.equal(1);
    expect(Object.values(latest!.ejected.byVerdict).reduce((a, b) => a + b, 0)).to.equal(1);
    expect(latest!.testRuns.started).to.be.at.least(2);
    expect(latest!.objectives).to.deep.equal([{ metric: 'time_in_queue_p50', value: latest!.merged.timeInQueueMinutes.p50, level: 'ok', met: true }]);
    expect(received[1]!.json).to.include({ type: 'queue.digest', action: 'digest', target_branch: 'main' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.length, 'each period once').to.equal(2);
  });
});
