// Merge windows over real HTTP: a schedule set through updateQueue (checked, audited, echoed by
// getQueue), the watcher's announcements as webhook events (announced with a forecast, begun,
// ended), getQueue's current and next closure, and the forecast endpoint. Only loopback is
// contacted (the webhook receiver listens on 127.0.0.1).
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { expectOpenApiResponse } from '../helpers/openapi.js';
import { createRepo, DEFAULT_REPO } from '../../scripts/lib/git-fixtures.js';
import { LOOPBACK_RECEIVERS_ALLOWED, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../../scripts/lib/wait.js';

const repo = DEFAULT_REPO;
const ref = { repo, targetBranch: 'main' };
const MINUTE = 60_000;

describe('merge windows', function () {
  let svc: TestService;
  let receiver: WebhookReceiver;

  beforeEach(async () => {
    svc = await startTestService({ startWorkers: true, env: LOOPBACK_RECEIVERS_ALLOWED });
    await createRepo(svc.gitRoot, { repo });
    expect((await svc.post('/createQueue', ref)).status).to.equal(200);
    receiver = await startWebhookReceiver();
    const events = ['queue.freeze_announced', 'queue.freeze_started', 'queue.freeze_ended'];
    expect((await svc.post('/createWebhookEndpoint', { url: receiver.url, events })).status).to.equal(200);
  });
  afterEach(async () => {
    await receiver.close();
    await svc.close();
  });

  const queueNow = () => svc.ctx.mergeQueue.store.queues.find(svc.orgId, repo, 'main').then((q) => q!);
  const watch = async (at: Date) => svc.ctx.mergeQueue.services.mergeWindows.watch(await queueNow(), at);

  it('refuses a schedule it cannot use, naming each problem', async () => {
    const res = await svc.post<{ error: { code: string; details: { path: string }[] } }>('/updateQueue', {
      ...ref,
      schedule: { timeZone: 'Mars/Olympus', freezes: [{ name: 'x', from: '2026-12-02T00:00', to: '2026-12-01T00:00' }] },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error.details.map((d) => d.path)).to.deep.equal(['/schedule/timeZone', '/schedule/freezes/0/to']);
    const shape = await svc.post<{ error: { details: { path: string }[] } }>('/updateQueue', {
      ...ref,
      schedule: { timeZone: 'UTC', windows: [{ days: ['someday'], from: '9', to: '17:00' }] },
    });
    expect(shape.status).to.equal(400);
  });

  it('stores and shows the schedule, announces a freeze with its forecast, and says when it begins and ends', async () => {
    const now = Date.now();
    const from = new Date(now + 30 * MINUTE);
    const to = new Date(now + 90 * MINUTE);
    const schedule = { timeZone: 'Europe/Berlin', freezes: [{ name: 'release', reason: 'release 4.2', from: from.toISOString(), to: to.toISOString() }] };
    const updated = await svc.post<{ schedule: unknown }>('/updateQueue', { ...ref, schedule });
    expect(updated.status).to.equal(200);
    expectOpenApiResponse('/updateQueue', updated.body);
    expect(updated.body.schedule).to.deep.equal({
      timeZone: 'Europe/Berlin',
      windows: [],
      freezes: [{ name: 'release', reason: 'release 4.2', daily: null, from: from.toISOString(), to: to.toISOString(), targets: [] }],
      holidays: [],
      exceptPriorityAtMost: null,
      inFlightAtFreeze: 'merge',
      announceMinutes: 60,
    });
    const audit = await svc.post<{ events: { action: string; detail: Record<string, unknown> }[] }>('/listAuditEvents', {});
    expect(audit.body.events.some((e) => e.action === 'queue.updated' && 'schedule' in e.detail)).to.equal(true);

    // The watcher's first look: the freeze is 30 minutes away, within the hour's announcement.
    await watch(new Date(now));
    const shown = await svc.post<{ mergeWindow: { current: unknown[]; next: { name: string; startsAt: string } | null } }>('/getQueue', ref);
    expectOpenApiResponse('/getQueue', shown.body);
    expect(shown.body.mergeWindow?.current).to.deep.equal([]);
    expect([shown.body.mergeWindow?.next?.name, shown.body.mergeWindow?.next?.startsAt]).to.deep.equal(['release', from.toISOString()]);
    const forecast = await svc.post<{ closure: { name: string } | null; pullRequests: unknown[] }>('/getMergeWindowForecast', ref);
    expect(forecast.status).to.equal(200);
    expect(forecast.body.closure?.name).to.equal('release');

    // Looking again announces nothing twice; then the freeze begins, then it ends.
    await watch(new Date(now + MINUTE));
    await watch(new Date(now + 31 * MINUTE));
    const during = await svc.post<{ mergeWindow: { current: { name: string; endsAt: string }[] } }>('/getQueue', ref);
    expect(during.body.mergeWindow.current.map((c) => [c.name, c.endsAt])).to.deep.equal([['release', to.toISOString()]]);
    await watch(new Date(now + 91 * MINUTE));
    const received = await waitFor('three events', async () => receiver.received.length >= 3 && receiver.received);
    expect(received.map((r) => [r.json.type, (r.json.closure as { name: string }).name])).to.deep.equal([
      ['queue.freeze_announced', 'release'],
      ['queue.freeze_started', 'release'],
      ['queue.freeze_ended', 'release'],
    ]);
    expect(received[0]!.json.forecast).to.deep.equal([]);
    const after = await svc.post<{ mergeWindow: { current: unknown[]; next: unknown } }>('/getQueue', ref);
    expect(after.body.mergeWindow).to.deep.equal({ current: [], next: null });

    // Removing the schedule clears the window at the watcher's next look.
    expect((await svc.post('/updateQueue', { ...ref, schedule: null })).status).to.equal(200);
    await watch(new Date(now + 92 * MINUTE));
    const cleared = await svc.post<{ schedule: unknown; mergeWindow: unknown }>('/getQueue', ref);
    expect([cleared.body.schedule, cleared.body.mergeWindow]).to.deep.equal([null, null]);
  });
});
