// Merge windows over real HTTP: a schedule set through updateQueue (checked, audited, echoed by
// getQueue), the watcher's announcements as webhook events (announced with a forecast, begun,
// ended), getQueue's current and next closure, and the forecast endpoint. Only loopback is
// contacted (the webhook receiver listens on 127.0.0.1).
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { expectOpenApiResponse } from '../helpers/openapi.js';
import { createRepo, DEFAULT_REPO, pushToBranch, writePullMetadata } from '../../scripts/lib/git-fixtures.js';
import { LOOPBACK_RECEIVERS_ALLOWED, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../../scripts/lib/wait.js';
import { makeQueue } from './pull-requests-support.js';

const repo = DEFAULT_REPO;
const ref = { repo, targetBranch: 'main' };
const OTHER = { ...DEFAULT_REPO, name: 'configured' };
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

  it('holds a pull request in a freeze: its status and timeline say why and until when; an urgent one passes; the rest goes once it ends', async () => {
    const q = await makeQueue(svc, { concurrency: 2 });
    const until = new Date(Date.now() + 3600_000);
    await q.update({
      schedule: {
        timeZone: 'UTC',
        exceptPriorityAtMost: 0,
        freezes: [{ name: 'incident', reason: 'db failover', from: new Date(Date.now() - 60_000).toISOString(), to: until.toISOString() }],
      },
    });
    await q.pr(1, { metadata: { title: 'Held' } });
    await q.pr(2, { metadata: { title: 'Hotfix' } });
    await q.submitOk(1);
    await q.submitOk(2, { priority: 'urgent' });
    await q.waitState(2, 'testing');
    const held = await waitFor('the wait noted', async () => {
      const res = await q.getRaw({ number: 1 }, { includeTimeline: true });
      const body = res.body as { state: string; waitingForMergeWindow?: { until: string; detail: string }; timeline: { reason: string; detail?: string }[] };
      return body.timeline[0]?.reason === 'waiting_for_merge_window' && body;
    });
    expect(held.state).to.equal('pending');
    expect(held.waitingForMergeWindow?.until).to.equal(until.toISOString());
    expect(held.waitingForMergeWindow?.detail).to.contain('the freeze "incident" (db failover)');
    expect(held.timeline[0]!.detail).to.contain('the queue is closed for it');
    // The freeze is lifted: #1 is tested.
    await q.update({ schedule: null });
    await q.waitState(1, 'testing');
    const moving = (await q.getRaw({ number: 1 })).body as { waitingForMergeWindow?: unknown };
    expect(moving.waitingForMergeWindow).to.equal(undefined);
  });

  it('holds only pull requests that change frozen paths, and lets one through once an exception label is added at the forge', async () => {
    const q = await makeQueue(svc, { concurrency: 3 });
    const until = new Date(Date.now() + 3600_000);
    await q.update({
      schedule: {
        timeZone: 'UTC',
        exceptLabels: ['hotfix'],
        freezes: [{ name: 'backend release', from: new Date(Date.now() - 60_000).toISOString(), to: until.toISOString(), paths: ['services/api/**'] }],
      },
    });
    const api = (n: number) => ({ commits: [{ message: `API ${n}`, files: { [`services/api/handler-${n}.go`]: `${n}\n` } }] });
    await q.pr(1, api(1));
    await q.pr(2, { commits: [{ message: 'Docs', files: { 'docs/guide.md': 'guide\n' } }] });
    await q.pr(3, { ...api(3), metadata: { labels: ['backend'] } });
    for (const n of [1, 2, 3]) await q.submitOk(n);
    await q.waitState(2, 'testing');
    const waiting = async (n: number) => {
      const body = (await q.getRaw({ number: n })).body as { state: string; waitingForMergeWindow?: { detail: string } };
      return body.state === 'pending' && body.waitingForMergeWindow?.detail.includes('the freeze "backend release"');
    };
    await waitFor('#1 and #3 wait for the window', async () => (await waiting(1)) && (await waiting(3)));
    const forecast = await svc.post('/getMergeWindowForecast', q.ref);
    expect(forecast.status).to.equal(200);
    // The freeze has begun: the forecast is for the next closure, so it reads what now holds them.
    const current = (forecast.body as { mergeWindow: { current: { name: string; paths: string[] }[] } }).mergeWindow.current;
    expect(current).to.deep.equal([{ ...current[0], name: 'backend release', paths: ['services/api/**'] }]);
    // The exception label is added at the forge: the next sync reads it and #3 is tested.
    await writePullMetadata(q.fx, 3, { labels: ['backend', 'HotFix'] });
    await q.sync();
    await q.waitState(3, 'testing');
    expect((await q.entry(3)).prLabels).to.deep.equal(['backend', 'HotFix']);
    expect(await waiting(1), '#1 still waits').to.equal(true);
  });

  it("takes the repository's schedule from .trunk/trunk.yaml when the queue has none, and says when it cannot be used", async () => {
    const from = new Date(Date.now() + 10 * MINUTE).toISOString();
    const to = new Date(Date.now() + 70 * MINUTE).toISOString();
    const fx = await createRepo(svc.gitRoot, {
      repo: OTHER,
      files: {
        '.trunk/trunk.yaml': `version: 0.1\nmerge:\n  schedule:\n    timeZone: Europe/Berlin\n    freezes:\n      - {name: release, from: "${from}", to: "${to}"}\n`,
      },
    });
    const other = { repo: OTHER, targetBranch: 'main' };
    expect((await svc.post('/createQueue', other)).status).to.equal(200);
    const queue = async () => (await svc.ctx.mergeQueue.store.queues.find(svc.orgId, OTHER, 'main'))!;
    await svc.ctx.mergeQueue.services.mergeWindows.watch(await queue());
    const shown = await svc.post<{ schedule: unknown; mergeWindow: { source: string; next: { name: string } | null } }>('/getQueue', other);
    expect([shown.body.schedule, shown.body.mergeWindow.source, shown.body.mergeWindow.next?.name]).to.deep.equal([null, 'trunk_config', 'release']);
    // A file that cannot be used is not applied, and the window says why.
    const head = await pushToBranch(fx, 'main', [
      { message: 'Break the schedule', files: { '.trunk/trunk.yaml': 'version: 0.1\nmerge:\n  schedule:\n    timeZone: Nowhere/Atlantis\n' } },
    ]);
    await svc.ctx.mergeQueue.store.queues.observeTargetHead((await queue()).id, head);
    await svc.ctx.mergeQueue.services.mergeWindows.watch(await queue());
    const broken = await svc.post<{ mergeWindow: { source: string | null; problem: string | null; next: unknown } }>('/getQueue', other);
    expectOpenApiResponse('/getQueue', broken.body);
    expect([broken.body.mergeWindow.source, broken.body.mergeWindow.next]).to.deep.equal([null, null]);
    expect(broken.body.mergeWindow.problem).to.contain('/timeZone');
  });

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
      freezes: [{ name: 'release', reason: 'release 4.2', daily: null, from: from.toISOString(), to: to.toISOString(), targets: [], paths: [] }],
      holidays: [],
      exceptPriorityAtMost: null,
      exceptLabels: [],
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
    expect(after.body.mergeWindow).to.deep.equal({ source: 'queue', problem: null, current: [], next: null });

    // Removing the schedule clears the window at the watcher's next look.
    expect((await svc.post('/updateQueue', { ...ref, schedule: null })).status).to.equal(200);
    await watch(new Date(now + 92 * MINUTE));
    const cleared = await svc.post<{ schedule: unknown; mergeWindow: unknown }>('/getQueue', ref);
    expect([cleared.body.schedule, cleared.body.mergeWindow]).to.deep.equal([null, null]);
  });
});
