// The v2 API end to end, through a client generated from the hosted product's contract: every
// answer (2xx and 4xx) is checked against that contract as it arrives (helpers/v2-contract.ts).
// One engine, two APIs: what one API does, the other sees.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { calledOperations, contractOperations, v2Client, type V2Client } from '../helpers/v2-contract.js';
import { CI, makeQueue, SERVICE_OPTIONS, type PrQueue } from './pull-requests-support.js';
import { waitFor } from '../../scripts/lib/wait.js';
import { createRepo } from '../../scripts/lib/git-fixtures.js';
import { MERGE_QUEUE_PERMISSIONS } from '../../shared/platform/accounts/permissions.js';
import { LOOPBACK_RECEIVERS_ALLOWED, startWebhookReceiver } from '../helpers/webhook-receiver.js';

async function createKey(svc: TestService, name: string, permissions: readonly string[]): Promise<string> {
  const res = await svc.post<{ key: string; permissions: string[] }>('/createApiKey', { name, permissions });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body.key).to.match(/^omq_v2_/);
  return res.body.key;
}

const errorCode = (body: unknown) => (body as { error?: { code?: string } } | undefined)?.error?.code;

describe('v2 API', function () {
  this.timeout(60_000);
  let svc: TestService;
  let admin: V2Client;

  before(async () => {
    svc = await startTestService({
      ...SERVICE_OPTIONS,
      env: { ...SERVICE_OPTIONS.env, ...LOOPBACK_RECEIVERS_ALLOWED, V2_PULL_REQUEST_READS_PER_SECOND: '1000' },
    });
    admin = v2Client(svc.url, await createKey(svc, 'ci-admin', MERGE_QUEUE_PERMISSIONS));
  });
  after(async () => {
    await svc.close();
  });

  /** A repository with pull requests #1–#3 and its id, resolved through v2. */
  async function repository(name: string): Promise<{ repositoryId: string; q: PrQueue }> {
    const q = await makeQueue(svc);
    for (const n of [1, 2, 3]) await q.pr(n);
    const found = await admin.GET('/v2/repositories', { params: { query: { providerUrl: `https://github.com/acme/${q.ref.repo.name}.git` } } });
    expect(found.response.status, name).to.equal(200);
    const repositoryId = found.data?.data[0]?.id ?? '';
    const read = await admin.GET('/v2/repositories/{id}', { params: { path: { id: repositoryId } } });
    expect(read.data?.path).to.equal(`acme/${q.ref.repo.name}`);
    return { repositoryId, q };
  }

  it('runs a queue from creation to a switch of modes, with the generated client', async () => {
    const fx = await createRepo(svc.gitRoot, { repo: { host: 'github.com', owner: 'acme', name: `v2-fresh-${process.pid}` } });
    const { data: repos } = await admin.GET('/v2/repositories', { params: { query: { providerUrl: `https://github.com/acme/${fx.repo.name}` } } });
    const repositoryId = repos?.data[0]?.id ?? '';
    const created = await admin.POST('/v2/merge-queues', {
      body: { repositoryId, targetBranch: 'main', mode: 'queue', concurrency: 2, bisectionConcurrency: 1, enqueueingLabel: 'merge-me' },
    });
    expect(created.response.status).to.equal(201);
    const queueId = created.data?.id ?? '';
    expect(created.data?.config).to.include({ concurrency: 2, bisectionConcurrency: 1, enqueueingLabel: 'merge-me' });
    const again = await admin.POST('/v2/merge-queues', { body: { repositoryId, targetBranch: 'main' } });
    expect([again.response.status, errorCode(again.error)]).to.deep.equal([409, 'QUEUE_ALREADY_EXISTS']);
    const listed = await admin.GET('/v2/merge-queues', { params: { query: { repositoryId, targetBranch: 'main' } } });
    expect(listed.data?.data.map((q) => q.id)).to.deep.equal([queueId]);

    const configured = await admin.PATCH('/v2/merge-queues/{id}/config', {
      params: { path: { id: queueId } },
      body: { requiredStatuses: [CI], allowBatching: true, notReadyTimeoutMinutes: 120 },
    });
    expect(configured.data?.config).to.include({ allowBatching: true, notReadyTimeoutMinutes: 120 });
    expect(configured.data?.config.requiredStatuses).to.deep.equal([CI]);
    const audit = await svc.post<{ events: { actor: { kind: string; name: string; tokenId: string | null } }[] }>('/listAuditEvents', {
      action: 'queue.updated',
      limit: 1,
    });
    expect(audit.body.events[0]?.actor).to.include({ kind: 'api_key', name: 'API key ci-admin' });

    const paused = await admin.POST('/v2/merge-queues/{id}/pause', { params: { path: { id: queueId } } });
    expect(paused.data?.state).to.equal('paused');
    const draining = await admin.POST('/v2/merge-queues/{id}/drain', { params: { path: { id: queueId } } });
    expect(draining.data?.state).to.equal('draining');
    const running = await admin.POST('/v2/merge-queues/{id}/resume', { params: { path: { id: queueId } } });
    expect(running.data?.state).to.equal('running');
    const switched = await admin.POST('/v2/merge-queues/{id}/switch-modes', { params: { path: { id: queueId } }, body: { mode: 'graph' } });
    expect(switched.data?.mode).to.equal('graph');
    const v1 = await svc.post<{ mode: string; state: string }>('/getQueue', { repo: fx.repo, targetBranch: 'main' });
    expect(v1.body).to.include({ mode: 'parallel', state: 'running' });

    const metrics = await admin.GET('/v2/merge-queues/{id}/metrics', { params: { path: { id: queueId } }, parseAs: 'text' });
    expect(metrics.data).to.contain(`branch="main"`);
    const all = await admin.GET('/v2/merge-queues/metrics', { params: { query: { repositoryId } }, parseAs: 'text' });
    expect(all.data).to.contain(fx.repo.name);

    const removed = await admin.DELETE('/v2/merge-queues/{id}', { params: { path: { id: queueId } } });
    expect(removed.response.status).to.equal(204);
    const gone = await admin.GET('/v2/merge-queues/{id}', { params: { path: { id: queueId } } });
    expect([gone.response.status, errorCode(gone.error)]).to.deep.equal([404, 'MERGE_QUEUE_NOT_FOUND']);
  });

  it('submits with a priority, shows the order, graph and history, reprioritizes and dequeues', async () => {
    const { repositoryId, q } = await repository('submit');
    const queueId = q.queueId;
    const one = await admin.POST('/v2/merge-queues/{id}/pull-requests', { params: { path: { id: queueId } }, body: { number: 1, priorityName: 'high' } });
    expect(one.response.status).to.equal(201);
    expect(one.data?.queueEntry).to.include({ priorityName: 'high', priorityValue: 10, state: 'notReady', allowBatching: true, direct: false });
    await waitFor('#1 testing', async () => (await q.entry(1)).state === 'testing');
    await admin.POST('/v2/merge-queues/{id}/pull-requests', {
      params: { path: { id: queueId } },
      body: { number: 2, priorityValue: 100, allowBatching: false },
    });
    const three = await admin.POST('/v2/merge-queues/{id}/pull-requests', { params: { path: { id: queueId } }, body: { number: 3 } });
    const dup = await admin.POST('/v2/merge-queues/{id}/pull-requests', { params: { path: { id: queueId } }, body: { number: 1 } });
    expect([dup.response.status, errorCode(dup.error)]).to.deep.equal([409, 'PR_ALREADY_ENQUEUED']);
    await waitFor('#2 and #3 pending', async () => (await q.entry(2)).state === 'pending' && (await q.entry(3)).state === 'pending');

    const order = await admin.GET('/v2/merge-queues/{id}/order', { params: { path: { id: queueId } } });
    expect(order.data?.batches.map((b) => [b.state, b.pullRequests.map((p) => p.number)])).to.deep.equal([['testing', [1]]]);
    expect(order.data?.pending.map((p) => [p.pullRequest.number, p.directlyAhead.map((a) => a.number)])).to.deep.equal([
      [2, [1]],
      [3, [2]],
    ]);
    const graph = await admin.GET('/v2/merge-queues/{id}/graph', { params: { path: { id: queueId }, query: { includeImpactedTargets: true } } });
    expect(graph.data?.edges).to.deep.equal([
      { fromPullRequestNumber: 1, toPullRequestNumber: 2 },
      { fromPullRequestNumber: 2, toPullRequestNumber: 3 },
    ]);
    expect(graph.data?.nodes[0]).to.include({ pullRequestNumber: 1, state: 'testing', allowsBatching: true });

    const prId = three.data?.id ?? '';
    const raised = await admin.POST('/v2/pull-requests/{id}/reprioritize', { params: { path: { id: prId } }, body: { priorityName: 'high' } });
    expect(raised.data?.queueEntry).to.include({ priorityName: 'high', priorityValue: 10 });
    const reordered = await admin.GET('/v2/merge-queues/{id}/order', { params: { path: { id: queueId } } });
    expect(reordered.data?.pending.map((p) => p.pullRequest.number)).to.deep.equal([3, 2]);
    const patched = await admin.PATCH('/v2/pull-requests/{id}/queue-entry', { params: { path: { id: prId } }, body: { allowBatching: false, direct: true } });
    expect(patched.data?.queueEntry).to.include({ allowBatching: false, direct: true });

    const byNumber = await admin.GET('/v2/pull-requests', { params: { query: { repositoryId, number: '3,1,2' } } });
    expect(byNumber.data?.data.map((p) => [p.number, p.isCurrentlySubmittedToQueue])).to.deep.equal([
      [1, true],
      [2, true],
      [3, true],
    ]);
    const dequeued = await admin.POST('/v2/pull-requests/{id}/dequeue', { params: { path: { id: prId } } });
    expect(dequeued.data?.queueEntry?.state).to.equal('cancelled');
    expect(dequeued.data?.isCurrentlySubmittedToQueue).to.equal(false);
    const twice = await admin.POST('/v2/pull-requests/{id}/dequeue', { params: { path: { id: prId } } });
    expect([twice.response.status, errorCode(twice.error)]).to.deep.equal([409, 'PR_NOT_IN_ACTIVE_STATE']);

    const history = await admin.GET('/v2/pull-requests/{id}/queue-entry-history', { params: { path: { id: prId }, query: { limit: 1 } } });
    expect(history.data?.data.map((t) => t.state)).to.deep.equal(['notReady']);
    expect(history.data?.hasMore).to.equal(true);
    const rest = await admin.GET('/v2/pull-requests/{id}/queue-entry-history', {
      params: { path: { id: prId }, query: { limit: 100, cursor: history.data?.nextCursor ?? '' } },
    });
    expect(rest.data?.data.at(-1)).to.include({ state: 'cancelled', reason: 'USER_REQUESTED' });
    const newest = await admin.GET('/v2/queue-entry-history', {
      params: { query: { pullRequestIds: `${prId},00000000-0000-4000-8000-000000000000`, direction: 'newest' } },
    });
    expect(newest.data?.data[0]?.transitions[0]?.state).to.equal('cancelled');
    expect(newest.data?.data[1]?.transitions).to.deep.equal([]);
    const wrongCursor = await admin.GET('/v2/pull-requests/{id}/queue-entry-history', {
      params: { path: { id: prId }, query: { cursor: history.data?.nextCursor ?? '', direction: 'newest' } },
    });
    expect([wrongCursor.response.status, errorCode(wrongCursor.error)]).to.deep.equal([400, 'INVALID_CURSOR']);

    const listed = await admin.GET('/v2/merge-queues/{id}/pull-requests', {
      params: { path: { id: queueId }, query: { state: 'cancelled', includeTotal: true } },
    });
    expect(listed.data?.data.map((p) => p.number)).to.deep.equal([3]);
    expect(listed.data?.total).to.equal(1);
    const notEmpty = await admin.DELETE('/v2/merge-queues/{id}', { params: { path: { id: queueId } } });
    expect([notEmpty.response.status, errorCode(notEmpty.error)]).to.deep.equal([409, 'QUEUE_HAS_ACTIVE_ENTRIES']);
  });

  it('mixes v1 and v2 on the same entries, and the same webhooks fire whichever acted', async () => {
    const receiver = await startWebhookReceiver();
    const endpoint = await svc.post('/createWebhookEndpoint', { url: receiver.url, events: ['pull_request.submitted', 'pull_request.canceled'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(200);
    const { q } = await repository('mixed');
    await q.update({ state: 'paused' });
    await q.submitOk(1);
    const v1Entry = await q.entry(1);
    const { data: found } = await admin.GET('/v2/merge-queues/{id}/pull-requests', { params: { path: { id: q.queueId } } });
    const pr = found?.data.find((p) => p.number === 1);
    expect(pr?.queueEntry?.id).to.equal(v1Entry.id);
    const cancelled = await admin.POST('/v2/pull-requests/{id}/dequeue', { params: { path: { id: pr?.id ?? '' } } });
    expect(cancelled.data?.queueEntry?.state).to.equal('cancelled');
    expect((await q.entry(1)).state).to.equal('cancelled');

    const submitted = await admin.POST('/v2/merge-queues/{id}/pull-requests', { params: { path: { id: q.queueId } }, body: { number: 2 } });
    expect(submitted.response.status).to.equal(201);
    const cancel = await svc.post('/cancelPullRequest', { ...q.ref, pr: { number: 2 } });
    expect(cancel.status).to.equal(200);
    const read = await admin.GET('/v2/pull-requests/{id}', { params: { path: { id: submitted.data?.id ?? '' } } });
    expect(read.data?.queueEntry?.state).to.equal('cancelled');
    expect(read.data?.state).to.equal('open');

    // #1 went in by v1 and out by v2, #2 the other way round: each fires both events.
    const seen = () =>
      receiver.received
        .map((r) => r.json as { type: string; pr_number?: number; repository?: { name?: string } })
        .filter((e) => e.repository?.name === q.ref.repo.name)
        .map((e) => `${e.type} #${String(e.pr_number)}`)
        .sort();
    await waitFor('four deliveries', async () => seen().length >= 4);
    expect(seen()).to.deep.equal(['pull_request.canceled #1', 'pull_request.canceled #2', 'pull_request.submitted #1', 'pull_request.submitted #2']);
    await svc.post('/deleteWebhookEndpoint', { id: (endpoint.body as { id: string }).id });
    await receiver.close();
  });

  it('reports verification runs, testing results, restarts and impacted targets of a tested pull request', async () => {
    const { repositoryId, q } = await repository('runs');
    const head = await q.pr(4);
    const upload = await admin.PUT('/v2/impacted-targets', {
      body: { repositoryId, targetBranch: 'main', number: 4, sha: head, impactedTargets: ['//app:lib'] },
    });
    expect(upload.response.status).to.equal(202);
    const submitted = await admin.POST('/v2/merge-queues/{id}/pull-requests', { params: { path: { id: q.queueId } }, body: { number: 4 } });
    const prId = submitted.data?.id ?? '';
    const targets = await admin.GET('/v2/pull-requests/{id}/impacted-targets', { params: { path: { id: prId } } });
    expect(targets.data).to.deep.include({ impactsAllTargets: false, impactedTargets: ['//app:lib'], totalImpactedTargets: 1 });
    await waitFor('#4 testing', async () => (await q.entry(4)).state === 'testing');
    const order = await admin.GET('/v2/merge-queues/{id}/order', { params: { path: { id: q.queueId } } });
    expect(order.data?.batches[0]?.pullRequests.map((p) => p.number)).to.deep.equal([4]);
    const runs = await admin.GET('/v2/pull-requests/{id}/verification-runs', { params: { path: { id: prId } } });
    const run = runs.data?.data[0];
    expect(run?.status).to.equal('inProgress');
    expect(run?.testedPullRequests.map((p) => [p.id, p.number])).to.deep.equal([[prId, 4]]);
    const restarted = await admin.POST('/v2/pull-requests/{id}/restart-tests', { params: { path: { id: prId } } });
    expect(restarted.response.status).to.equal(200);
    const rerun = await admin.POST('/v2/pull-requests/{id}/rerun-failed-checks', { params: { path: { id: prId } }, body: { mode: 'now' } });
    expect([rerun.response.status, errorCode(rerun.error)]).to.deep.equal([422, 'PR_TESTS_NOT_RESTARTABLE']);
    await waitFor('#4 testing again', async () => (await q.entry(4)).state === 'testing');
    const entry = await q.entry(4);
    const queueRuns = await admin.GET('/v2/merge-queues/{id}/verification-runs', { params: { path: { id: q.queueId }, query: { status: 'cancelled' } } });
    expect(queueRuns.data?.data.map((r) => r.id)).to.deep.equal([run?.id]);
    const one = await admin.GET('/v2/merge-queue-verification-runs/{id}', { params: { path: { id: run?.id ?? '' } } });
    expect(one.data?.status).to.equal('cancelled');
    const results = await admin.GET('/v2/merge-queues/{id}/testing-results', {
      params: { path: { id: q.queueId }, query: { since: new Date(Date.now() - 3_600_000).toISOString() } },
    });
    expect(results.data?.data.map((r) => [r.pullRequestNumber, r.outcome, r.verificationRunId])).to.deep.equal([[4, 'cancelled', run?.id]]);
    expect(entry.state).to.equal('testing');
  });

  it('checks permissions: a key without any reads but changes nothing; body fields need their own', async () => {
    const { q } = await repository('permissions');
    await q.update({ state: 'paused' });
    const reader = v2Client(svc.url, await createKey(svc, 'dashboard', []));
    expect((await reader.GET('/v2/merge-queues/{id}', { params: { path: { id: q.queueId } } })).response.status).to.equal(200);
    const refused = await reader.POST('/v2/merge-queues/{id}/pull-requests', { params: { path: { id: q.queueId } }, body: { number: 1 } });
    expect([refused.response.status, errorCode(refused.error)]).to.deep.equal([403, 'INSUFFICIENT_PERMISSIONS']);
    expect((await reader.POST('/v2/merge-queues/{id}/pause', { params: { path: { id: q.queueId } } })).response.status).to.equal(403);

    const merger = v2Client(svc.url, await createKey(svc, 'merger', ['merge_and_cancel']));
    for (const body of [
      { number: 1, priorityName: 'high' },
      { number: 1, allowBatching: false },
      { number: 1, direct: true },
    ]) {
      const res = await merger.POST('/v2/merge-queues/{id}/pull-requests', { params: { path: { id: q.queueId } }, body });
      expect([res.response.status, errorCode(res.error)], JSON.stringify(body)).to.deep.equal([403, 'INSUFFICIENT_PERMISSIONS']);
    }
    const ok = await merger.POST('/v2/merge-queues/{id}/pull-requests', { params: { path: { id: q.queueId } }, body: { number: 1, allowBatching: true } });
    expect(ok.response.status).to.equal(201);
    const noPriority = await merger.POST('/v2/pull-requests/{id}/reprioritize', { params: { path: { id: ok.data?.id ?? '' } }, body: { priorityValue: 0 } });
    expect(noPriority.response.status).to.equal(403);
    const prioritizer = v2Client(svc.url, await createKey(svc, 'prioritizer', ['set_priority']));
    const urgent = await prioritizer.POST('/v2/pull-requests/{id}/reprioritize', { params: { path: { id: ok.data?.id ?? '' } }, body: { priorityValue: 0 } });
    expect(urgent.data?.queueEntry).to.include({ priorityValue: 0, skipsTheLine: true });
    expect((await prioritizer.POST('/v2/pull-requests/{id}/dequeue', { params: { path: { id: ok.data?.id ?? '' } } })).response.status).to.equal(403);

    // A v1 token works on v2 with the permissions its role amounts to: read changes nothing.
    const readToken = await svc.post<{ token: string }>('/createToken', { name: 'reader', role: 'read' });
    const v1Reader = v2Client(svc.url, readToken.body.token);
    expect((await v1Reader.GET('/v2/merge-queues/{id}/order', { params: { path: { id: q.queueId } } })).response.status).to.equal(200);
    expect((await v1Reader.POST('/v2/pull-requests/{id}/dequeue', { params: { path: { id: ok.data?.id ?? '' } } })).response.status).to.equal(403);

    const audit = await svc.post<{ events: { action: string; actor: { kind: string; name: string } }[] }>('/listAuditEvents', { action: 'api_key.created' });
    expect(audit.body.events.map((e) => e.actor.kind)).to.include('token');
    expect((await q.entry(1)).history[0]?.detail).to.contain('by API key merger');
  });

  it('answers credentials, other organisations, bad input and unknown routes in the v2 envelope', async () => {
    const { q } = await repository('errors');
    const none = await fetch(`${svc.url}/v2/merge-queues`);
    expect(none.status).to.equal(401);
    expect(none.headers.get('x-request-id')).to.be.a('string');
    expect(await none.json()).to.deep.include({ error: { code: 'AUTHENTICATION_REQUIRED', message: 'send an API key as Authorization: Bearer <key>' } });
    const wrong = v2Client(svc.url, 'omq_v2_not-a-key');
    expect(errorCode((await wrong.GET('/v2/merge-queues', {})).error)).to.equal('INVALID_TOKEN');
    const key = await createKey(svc, 'v1-refused', []);
    const onV1 = await svc.post('/getQueue', q.ref, { token: key });
    expect([onV1.status, errorCode(onV1.body)]).to.deep.equal([401, 'api_key_v2_only']);

    const other = await svc.addOrg(`other-${process.pid}`);
    const res = await svc.raw('POST', '/v1/createApiKey', {
      body: JSON.stringify({ name: 'theirs', permissions: ['update_settings'] }),
      headers: { 'content-type': 'application/json', 'x-api-token': other.token },
    });
    const theirs = v2Client(svc.url, (res.body as { key: string }).key);
    const hidden = await theirs.GET('/v2/merge-queues/{id}', { params: { path: { id: q.queueId } } });
    expect([hidden.response.status, errorCode(hidden.error)]).to.deep.equal([404, 'MERGE_QUEUE_NOT_FOUND']);
    expect((await theirs.GET('/v2/merge-queues', {})).data?.data).to.deep.equal([]);

    const bad = await admin.POST('/v2/merge-queues/{id}/pull-requests', {
      params: { path: { id: q.queueId } },
      body: { number: 'one' } as unknown as { number: number },
    });
    expect([bad.response.status, errorCode(bad.error)]).to.deep.equal([400, 'VALIDATION_FAILED']);
    const badState = await admin.GET('/v2/merge-queues/{id}/pull-requests', { params: { path: { id: q.queueId }, query: { state: 'TESTS_PASSED' } } });
    expect(errorCode(badState.error)).to.equal('VALIDATION_FAILED');
    const badId = await admin.GET('/v2/pull-requests/{id}', { params: { path: { id: 'not-a-uuid' } } });
    expect([badId.response.status, errorCode(badId.error)]).to.deep.equal([400, 'VALIDATION_FAILED']);
    const unknown = await fetch(`${svc.url}/v2/no-such-thing`, { headers: { authorization: `Bearer ${key}` } });
    expect([unknown.status, ((await unknown.json()) as { error: { code: string } }).error.code]).to.deep.equal([404, 'NOT_FOUND']);
    const described = await fetch(`${svc.url}/v2/openapi.json`);
    const doc = (await described.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).to.include('/v2/merge-queues/{id}/order');
  });

  it('limits each organisation to its request rate, with Retry-After', async () => {
    const limited = await startTestService({ env: { V2_REQUESTS_PER_SECOND: '3' } });
    try {
      const res = await limited.post<{ key: string }>('/createApiKey', { name: 'fast', permissions: [] });
      const client = v2Client(limited.url, res.body.key);
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await client.GET('/v2/merge-queues', {}));
      expect(answers.map((a) => a.response.status)).to.deep.equal([200, 200, 200, 429]);
      expect(errorCode(answers[3]?.error)).to.equal('RATE_LIMIT_EXCEEDED');
      expect(Number(answers[3]?.response.headers.get('retry-after'))).to.be.within(1, 1);
    } finally {
      await limited.close();
    }
  });

  it('routes every operation of the contract', async () => {
    for (const op of contractOperations()) {
      const res = await fetch(`${svc.url}${op.path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000')}`, { method: op.method });
      expect(res.status, op.key).to.equal(401);
    }
  });

  it('was driven through every operation of the contract, each answer checked', () => {
    const missing = contractOperations()
      .map((o) => o.operationId)
      .filter((id) => !calledOperations.has(id));
    expect(missing).to.deep.equal([]);
  });
});
