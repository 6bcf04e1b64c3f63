// Outbound webhooks (issue 14 §1) with a receiver on loopback that verifies every delivery with the
// `standardwebhooks` package: the events of a merge in order, retries with a stable webhook-id,
// redelivery, secret rotation, disabling, Slack messages, and a dead receiver not slowing the queue.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { generateToken } from '../../shared/platform/accounts/token-repository.js';
import { waitFor } from '../../scripts/lib/wait.js';
import { makeQueue, SERVICE_OPTIONS, type PrQueue } from './pull-requests-support.js';
import { LOOPBACK_RECEIVERS_ALLOWED, startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { failingTestId, junit, ORG, REPO, sha, uploadOk } from './flaky-support.js';

interface EndpointBody {
  id: string;
  url: string;
  kind: string;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  secret?: string;
}
interface DeliveryBody {
  id: string;
  webhookId: string;
  type: string;
  status: string;
  attempts: number;
  responseCode: number | null;
  durationMs: number | null;
  error: string | null;
}

const RETRY_BASE_MS = 150;

function startService(env: Record<string, string> = {}): Promise<TestService> {
  return startTestService({
    ...SERVICE_OPTIONS,
    env: { ...SERVICE_OPTIONS.env, ...LOOPBACK_RECEIVERS_ALLOWED, WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS), WEBHOOK_TIMEOUT_MS: '1000', ...env },
  });
}

describe('outbound webhooks', function () {
  this.timeout(60_000);
  let svc: TestService;
  let receiver: WebhookReceiver;
  let q: PrQueue;

  async function createEndpoint(body: Record<string, unknown>): Promise<EndpointBody & { secret: string }> {
    const res = await svc.post<EndpointBody & { secret: string }>('/createWebhookEndpoint', body);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  }
  const deliveries = async (endpointId: string) => (await svc.post<{ deliveries: DeliveryBody[] }>('/listWebhookDeliveries', { endpointId })).body.deliveries;
  const types = (requests: ReceivedRequest[]) => requests.map((r) => r.json.type);
  const waitReceived = (what: string, count: number) => waitFor(what, async () => receiver.received.length >= count && receiver.received);
  const setState = async (state: string) => expect((await svc.post('/updateQueue', { ...q.ref, state })).status).to.equal(200);

  afterEach(async () => {
    await receiver?.close();
    await svc?.close();
  });

  describe('with a healthy service', () => {
    beforeEach(async () => {
      svc = await startService();
      receiver = await startWebhookReceiver();
      q = await makeQueue(svc);
    });

    it('delivers the events of a merge, signed and in order, with the hosted payload fields', async () => {
      const endpoint = await createEndpoint({ url: receiver.url, description: 'all events' });
      expect(endpoint.secret).to.match(/^whsec_/);
      expect(endpoint).to.include({ kind: 'standard', enabled: true });
      await q.pr(1, { metadata: { title: 'Add one', author: 'alice' } });
      await q.submitOk(1);
      const run = await q.ci(1, 'success');
      await q.waitState(1, 'merged');
      const received = await waitFor('merged event', async () => receiver.received.some((r) => r.json.type === 'pull_request.merged') && receiver.received);

      for (const r of received) receiver.verify(r, endpoint.secret);
      expect(types(received)).to.deep.equal(['pull_request.submitted', 'pull_request.queued', 'pull_request.testing', 'pull_request.merged']);
      expect(new Set(received.map((r) => r.headers['webhook-id'])).size).to.equal(received.length);
      const merged = received.at(-1)!.json;
      expect(merged).to.deep.include({
        type: 'pull_request.merged',
        action: 'merged',
        status: 'merged',
        author: 'alice',
        pr_number: 1,
        repository: q.ref.repo,
        target_branch: 'main',
        test_branch: run.branch,
        test_branch_sha: run.sha,
        batched: false,
        is_bisection: false,
        merged_reason: 'MERGE_GRAPH_MERGE',
      });
      expect(merged.http_details_url).to.match(/^http:\/\/[^/]+\/[^/]+\/merge-queue\/pull-request\/1\?repo=.+&branch=main$/);
      expect(received[0]!.json).to.include({ submitted_reason: 'API_REQUESTED' });
      // Testing is announced once the test branch exists, so that CI can be matched to it.
      expect(received[2]!.json).to.deep.include({ type: 'pull_request.testing', test_branch: run.branch, test_branch_sha: run.sha });
      expect(Date.parse(String(merged.timestamp))).to.be.closeTo(Date.now(), 60_000);

      const listed = await waitFor('deliveries recorded', async () => {
        const ds = await deliveries(endpoint.id);
        return ds.length === 4 && ds.every((d) => d.status === 'delivered') && ds;
      });
      for (const d of listed) {
        expect(d).to.include({ attempts: 1, responseCode: 204, error: null });
        expect(d.durationMs).to.be.a('number');
      }
      expect(listed.map((d) => d.webhookId).sort()).to.deep.equal(received.map((r) => r.headers['webhook-id']).sort());
    });

    it("delivers pull_request_batch.merged with the batch's pull requests when a batch merges", async () => {
      q = await makeQueue(svc, { settings: { batch: true, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 10 } });
      const endpoint = await createEndpoint({ url: receiver.url, events: ['pull_request_batch.testing', 'pull_request_batch.merged'] });
      await q.pr(1);
      await q.pr(2);
      await q.submitOk(1);
      await q.submitOk(2);
      const run = await q.ci(1, 'success');
      expect(run.entryIds).to.have.length(2);
      await q.waitState(1, 'merged');
      await q.waitState(2, 'merged');
      const received = await waitFor(
        'batch merged event',
        async () => receiver.received.some((r) => r.json.type === 'pull_request_batch.merged') && receiver.received,
      );
      for (const r of received) receiver.verify(r, endpoint.secret);
      expect(types(received)).to.deep.equal(['pull_request_batch.testing', 'pull_request_batch.merged']);
      const merged = received.at(-1)!.json;
      expect(merged).to.deep.include({
        action: 'merged',
        status: 'merged',
        repository: q.ref.repo,
        target_branch: 'main',
        test_branch: run.branch,
        batched: true,
        merged_reason: 'MERGE_GRAPH_MERGE',
      });
      expect((merged.pr_numbers as number[]).slice().sort()).to.deep.equal([1, 2]);
    });

    it('delivers only the subscribed events; a slack endpoint gets a readable message', async () => {
      const slackReceiver = await startWebhookReceiver();
      try {
        await createEndpoint({ url: receiver.url, events: ['pull_request.merged', 'queue.state_changed'] });
        await createEndpoint({ url: slackReceiver.url, kind: 'slack', events: ['pull_request.merged', 'queue.state_changed'] });
        await setState('paused');
        await setState('running');
        await q.pr(1, { metadata: { title: 'Add one', author: 'alice' } });
        await q.submitOk(1);
        await q.ci(1, 'success');
        await q.waitState(1, 'merged');
        await waitReceived('three events', 3);
        const slack = await waitFor('three slack messages', async () => slackReceiver.received.length >= 3 && slackReceiver.received);
        expect(types(receiver.received)).to.deep.equal(['queue.state_changed', 'queue.state_changed', 'pull_request.merged']);
        expect(receiver.received[0]!.json).to.include({ previous_state: 'running', state: 'paused' });
        expect(slack.map((r) => Object.keys(r.json))).to.deep.equal([['text'], ['text'], ['text']]);
        expect(slack[0]!.json.text).to.equal(`Merge queue acme/${q.ref.repo.name} → main is now paused (was running)`);
        expect(slack[2]!.json.text, String(slack[2]!.json.text)).to.match(
          /^Pull request #1 “Add one” \(acme\/widgets-\d+-\d+ → main\) was merged — merge graph merge: #1 verified by test run \S+ <http:\/\/\S+\/merge-queue\/pull-request\/1\?repo=\S+&branch=main\|details>$/,
        );
      } finally {
        await slackReceiver.close();
      }
    });

    it('retries a failing receiver with the same webhook-id and backoff, holding later events of the key behind it', async () => {
      receiver.respond = (_r, n) => (n < 2 ? 500 : 204);
      const endpoint = await createEndpoint({ url: receiver.url, events: ['queue.state_changed'] });
      await setState('paused');
      await setState('running');
      await setState('draining');
      const received = await waitReceived('five requests', 5);
      for (const r of received) receiver.verify(r, endpoint.secret);
      const ids = received.map((r) => r.headers['webhook-id']);
      expect(ids[0]).to.equal(ids[1]);
      expect(ids[1]).to.equal(ids[2]);
      expect(new Set(ids).size).to.equal(3);
      expect(received.map((r) => r.json.state)).to.deep.equal(['paused', 'paused', 'paused', 'running', 'draining']);
      // Exponential backoff: the second retry waits about twice as long as the first.
      expect(received[1]!.at - received[0]!.at).to.be.at.least(RETRY_BASE_MS - 20);
      expect(received[2]!.at - received[1]!.at).to.be.at.least(2 * RETRY_BASE_MS - 20);
      const first = await waitFor('first delivery done', async () =>
        (await deliveries(endpoint.id)).find((d) => d.webhookId === ids[0] && d.status === 'delivered'),
      );
      expect(first).to.include({ attempts: 3, responseCode: 204 });
    });

    it('redelivers one delivery with the same webhook-id and body', async () => {
      const endpoint = await createEndpoint({ url: receiver.url });
      await setState('paused');
      const [original] = await waitReceived('one event', 1);
      const [delivery] = await waitFor('delivered', async () => {
        const ds = await deliveries(endpoint.id);
        return ds[0]?.status === 'delivered' && ds;
      });
      const res = await svc.post<DeliveryBody>('/redeliverWebhook', { deliveryId: delivery!.id });
      expect(res.status).to.equal(200);
      const again = (await waitReceived('the redelivery', 2))[1]!;
      expect(again.headers['webhook-id']).to.equal(original!.headers['webhook-id']);
      expect(again.body).to.equal(original!.body);
      receiver.verify(again, endpoint.secret);
      expect((await svc.post('/redeliverWebhook', { deliveryId: 'nope' })).status).to.equal(404);
    });

    it('rotates the secret: deliveries verify with the new and, for a day, the old one', async () => {
      const endpoint = await createEndpoint({ url: receiver.url });
      const rotated = await svc.post<EndpointBody & { secret: string }>('/rotateWebhookSecret', { id: endpoint.id });
      expect(rotated.status).to.equal(200);
      expect(rotated.body.secret)
        .to.match(/^whsec_/)
        .and.not.equal(endpoint.secret);
      await setState('paused');
      const [r] = await waitReceived('one event', 1);
      receiver.verify(r!, rotated.body.secret);
      receiver.verify(r!, endpoint.secret);
      expect(() => receiver.verify(r!, 'whsec_' + Buffer.alloc(32, 1).toString('base64'))).to.throw();
    });

    it('manages endpoints: list, update, delete, 404s, validation and the audit trail', async () => {
      const endpoint = await createEndpoint({ url: receiver.url, description: 'first' });
      const listed = await svc.post<{ endpoints: EndpointBody[] }>('/listWebhookEndpoints', {});
      expect(listed.body.endpoints.map((e) => e.id)).to.deep.equal([endpoint.id]);
      expect(JSON.stringify(listed.body)).not.to.include(endpoint.secret);
      const updated = await svc.post<EndpointBody>('/updateWebhookEndpoint', { id: endpoint.id, events: ['pull_request.failed'], enabled: false });
      expect(updated.body).to.include({ enabled: false, disabledReason: 'disabled through the API' });
      expect(updated.body.events).to.deep.equal(['pull_request.failed']);
      expect((await svc.post('/createWebhookEndpoint', { url: 'ftp://example.com/x' })).status).to.equal(400);
      expect((await svc.post('/createWebhookEndpoint', { url: receiver.url, events: ['pull_request.exploded'] })).status).to.equal(400);
      expect((await svc.post('/deleteWebhookEndpoint', { id: endpoint.id })).status).to.equal(200);
      expect((await svc.post('/deleteWebhookEndpoint', { id: endpoint.id })).status).to.equal(404);
      expect((await svc.post('/listWebhookDeliveries', { endpointId: endpoint.id })).status).to.equal(404);
      const other = await svc.addOrg('other');
      expect((await svc.post<{ endpoints: unknown[] }>('/listWebhookEndpoints', {}, { token: other.token })).body.endpoints).to.deep.equal([]);
      const audit = await svc.post<{ events: { action: string; target: string }[] }>('/listAuditEvents', {});
      expect(audit.body.events.filter((e) => e.target === endpoint.id).map((e) => e.action)).to.deep.equal([
        'webhook.deleted',
        'webhook.updated',
        'webhook.created',
      ]);
    });

    it('tells when an override quarantines a test (standard and slack endpoints)', async () => {
      const slackReceiver = await startWebhookReceiver();
      try {
        const endpoint = await createEndpoint({ url: receiver.url, events: ['test.quarantined'] });
        await createEndpoint({ url: slackReceiver.url, kind: 'slack', events: ['test.quarantined'] });
        const testId = await failingTestId(svc);
        const flakyRepo = { repo: REPO, org_url_slug: ORG };
        expect((await svc.post('/flaky-tests/update-repo-settings', { ...flakyRepo, quarantine: { enabled: true }, reason: 'on' })).status).to.equal(200);
        const set = (override: string) =>
          svc.post('/flaky-tests/set-quarantine-override', { ...flakyRepo, test_id: testId, override, reason: 'known flake', actor: 'alice' });
        expect((await set('ALWAYS_QUARANTINE')).status).to.equal(200);
        // Already quarantined: no second event; lifting and quarantining again: one more.
        expect((await set('ALWAYS_QUARANTINE')).status).to.equal(200);
        expect((await set('NEVER_QUARANTINE')).status).to.equal(200);
        expect((await set('ALWAYS_QUARANTINE')).status).to.equal(200);
        const received = await waitReceived('two events', 2);
        for (const r of received) receiver.verify(r, endpoint.secret);
        expect(received[0]!.json).to.deep.include({
          type: 'test.quarantined',
          repository: REPO,
          override: 'ALWAYS_QUARANTINE',
          reason: 'known flake',
        });
        expect(received[0]!.json.test).to.deep.include({ id: testId, name: 'a' });
        expect(String(received[0]!.json.actor)).to.match(/^alice \(token:/);
        const slack = await waitFor('slack message', async () => slackReceiver.received.length >= 1 && slackReceiver.received);
        expect(slack[0]!.json.text).to.match(/^Test “a” of acme\/widgets is quarantined — known flake \(by alice \(token:\S+\)\)$/);
        // Events are stored with the request that caused them: exactly two were emitted.
        expect(await svc.ctx.db.collection('domain_events').countDocuments({ type: 'test.quarantined' })).to.equal(2);
        // Two overrides racing from not quarantined: the service decides on the version each write
        // replaced, so exactly one of them quarantined the test.
        expect((await set('NEVER_QUARANTINE')).status).to.equal(200);
        const raced = await Promise.all([set('ALWAYS_QUARANTINE'), set('ALWAYS_QUARANTINE'), set('ALWAYS_QUARANTINE')]);
        expect(raced.map((r) => r.status)).to.deep.equal([200, 200, 200]);
        expect(await svc.ctx.db.collection('domain_events').countDocuments({ type: 'test.quarantined' })).to.equal(3);
      } finally {
        await slackReceiver.close();
      }
    });

    it("tells when detection changes a test's status and quarantines it automatically", async () => {
      const endpoint = await createEndpoint({ url: receiver.url, events: ['test.status_changed', 'test.quarantined'] });
      const flakyRepo = { repo: REPO, org_url_slug: ORG };
      await uploadOk(svc, { branch: 'main', commit_sha: sha(1) }, [{ name: 'r.xml', data: junit({ a: 'p', b: 'p' }) }]);
      expect(
        (await svc.post('/flaky-tests/update-repo-settings', { ...flakyRepo, quarantine: { enabled: true, auto_quarantine: true }, reason: 'on' })).status,
      ).to.equal(200);
      // One failure on main makes `a` flaky (failure-count monitor); `b` stays healthy.
      const testId = await failingTestId(svc, { a: 'f', b: 'p' });
      const received = await waitReceived('status change and quarantine', 2);
      for (const r of received) receiver.verify(r, endpoint.secret);
      expect(types(received)).to.deep.equal(['test.status_changed', 'test.quarantined']);
      const changed = received[0]!.json;
      expect(changed).to.deep.include({ type: 'test.status_changed', repository: REPO, from: 'healthy', to: 'flaky' });
      expect(changed.test).to.deep.equal({ id: testId, name: 'a', status: 'flaky' });
      expect(changed.reason).to.be.a('string').and.not.equal('');
      expect(Date.parse(String(changed.timestamp))).to.be.closeTo(Date.now(), 60_000);
      expect(received[1]!.json).to.deep.include({ type: 'test.quarantined', repository: REPO, override: null, automatic: true });
      expect(received[1]!.json.test).to.deep.include({ id: testId, name: 'a', status: 'flaky' });
      expect(await svc.ctx.db.collection('domain_events').countDocuments({ type: { $in: ['test.status_changed', 'test.quarantined'] } })).to.equal(2);
    });

    it('never slows the queue: a receiver that never answers does not hold a merge', async () => {
      receiver.respond = () => 'hang';
      await createEndpoint({ url: receiver.url });
      await q.pr(1);
      const started = Date.now();
      await q.submitOk(1);
      await q.ci(1, 'success');
      await q.waitState(1, 'merged');
      // The merge took far less than one receiver timeout per event (four events, 1 s each).
      expect(Date.now() - started).to.be.below(4000);
      expect(receiver.received.length).to.be.at.least(1);
    });
  });

  it('disables an endpoint whose deliveries have failed for the configured time, and says why', async () => {
    svc = await startService({ WEBHOOK_DISABLE_AFTER_SECONDS: '1' });
    receiver = await startWebhookReceiver(() => 503);
    q = await makeQueue(svc);
    const endpoint = await createEndpoint({ url: receiver.url });
    await setState('paused');
    const disabled = await waitFor(
      'endpoint disabled',
      async () => {
        const e = (await svc.post<{ endpoints: EndpointBody[] }>('/listWebhookEndpoints', {})).body.endpoints[0]!;
        return !e.enabled && e;
      },
      { timeoutMs: 20_000 },
    );
    expect(disabled.disabledReason).to.match(/^every delivery failed since \S+ \(last: HTTP 503\)$/);
    const [delivery] = await deliveries(endpoint.id);
    expect(delivery).to.include({ status: 'failed', responseCode: 503 });
    expect(delivery!.attempts).to.be.at.least(2);
    // Nothing more is sent to a disabled endpoint; redelivery asks to enable it first.
    const count = receiver.received.length;
    await setState('running');
    expect((await svc.post<{ error: { code: string } }>('/redeliverWebhook', { deliveryId: delivery!.id })).body.error.code).to.equal(
      'webhook_endpoint_disabled',
    );
    await waitFor(
      'the second event published',
      async () => (await svc.ctx.events.store.events.listUnpublished(new Date(Date.now() + 60_000), 10)).length === 0,
    );
    expect(await deliveries(endpoint.id)).to.have.length(1);
    expect(receiver.received.length).to.equal(count);

    receiver.respond = () => 204;
    const enabled = await svc.post<EndpointBody>('/updateWebhookEndpoint', { id: endpoint.id, enabled: true });
    expect(enabled.body).to.include({ enabled: true, disabledReason: null, failingSince: null });
    expect((await svc.post('/redeliverWebhook', { deliveryId: delivery!.id })).status).to.equal(200);
    await waitFor('redelivered after enabling', async () => receiver.received.length > count);
  });

  it('sends at most WEBHOOK_ENDPOINT_CONCURRENCY deliveries to one endpoint at once, however slow it is', async () => {
    svc = await startService({ WEBHOOK_ENDPOINT_CONCURRENCY: '2' });
    receiver = await startWebhookReceiver(() => 'hang');
    q = await makeQueue(svc);
    await createEndpoint({ url: receiver.url, events: ['pull_request.submitted'] });
    // Five pull requests: five order keys, whose deliveries could all go at once.
    for (const n of [1, 2, 3, 4, 5]) {
      await q.pr(n);
      await q.submitOk(n);
    }
    await waitReceived('deliveries of every pull request, some of them retried', 7);
    expect(receiver.mostInFlight).to.equal(2);
  });

  describe('destinations', () => {
    it('refuses every loopback form at registration and on change, with a 400 that says why, unless the operator allows it', async () => {
      svc = await startTestService({ ...SERVICE_OPTIONS, env: { ...SERVICE_OPTIONS.env } });
      receiver = await startWebhookReceiver();
      const { port } = new URL(receiver.url);
      const forms = [
        receiver.url,
        `http://localhost:${port}/hook`,
        `http://[::1]:${port}/hook`,
        `http://[::ffff:127.0.0.1]:${port}/hook`,
        `http://2130706433:${port}/hook`,
        `http://127.1:${port}/hook`,
        `http://0x7f.0.0.1:${port}/hook`,
        `http://0.0.0.0:${port}/hook`,
        `http://127.0.0.2:${port}/hook`,
      ];
      for (const url of forms) {
        const res = await svc.post<{ error: { code: string; message: string; details: { path: string }[] } }>('/createWebhookEndpoint', { url });
        expect(res.status, url).to.equal(400);
        expect(res.body.error.code, url).to.equal('webhook_destination_refused');
        expect(res.body.error.message, url).to.match(/(names|resolves to) an? .+ address .*WEBHOOK_ALLOWED_DESTINATIONS/);
        expect(
          res.body.error.details.map((d) => d.path),
          url,
        ).to.deep.equal(['/url']);
      }
      const credentials = await svc.post<{ error: { code: string; message: string } }>('/createWebhookEndpoint', {
        url: `http://user:pass@127.0.0.1:${port}/hook`,
      });
      expect(credentials.body.error).to.include({ code: 'webhook_destination_refused' });
      expect(credentials.body.error.message).to.match(/must not carry a user name or password/);
      expect((await svc.post<{ endpoints: unknown[] }>('/listWebhookEndpoints', {})).body.endpoints).to.deep.equal([]);
      expect(receiver.received).to.deep.equal([]);
      await svc.close();

      svc = await startService();
      const allowed = await createEndpoint({ url: receiver.url });
      const moved = await svc.post<{ error: { code: string } }>('/updateWebhookEndpoint', { id: allowed.id, url: `http://127.0.0.2:${port}/hook` });
      expect(moved.status).to.equal(400);
      expect(moved.body.error.code).to.equal('webhook_destination_refused');
    });

    it('shows a receiver URL in full only to admins, and records only its origin in the audit trail', async () => {
      svc = await startService();
      receiver = await startWebhookReceiver();
      const secretPath = `${receiver.url}/T0123/B0456/a-secret-part-of-the-url`;
      const endpoint = await createEndpoint({ url: secretPath, kind: 'slack' });
      await svc.post('/updateWebhookEndpoint', { id: endpoint.id, url: `${receiver.url}/another-secret-part` });
      const reader = generateToken();
      await svc.ctx.accounts.store.tokens.register(svc.orgId, reader, 'reader', { role: 'read' });
      expect((await svc.post('/listWebhookEndpoints', {}, { token: reader })).status).to.equal(403);
      expect((await svc.post('/listWebhookDeliveries', { endpointId: endpoint.id }, { token: reader })).status).to.equal(403);
      const listed = await svc.post<{ endpoints: EndpointBody[] }>('/listWebhookEndpoints', {});
      expect(listed.body.endpoints[0]!.url).to.equal(`${receiver.url}/another-secret-part`);
      const audit = await svc.post<{ events: { action: string; detail: Record<string, unknown> }[] }>('/listAuditEvents', {}, { token: reader });
      const text = JSON.stringify(audit.body);
      expect(text).not.to.include('a-secret-part-of-the-url');
      expect(text).not.to.include('another-secret-part');
      const origin = new URL(receiver.url).origin;
      expect(audit.body.events.map((e) => [e.action, e.detail.destination])).to.deep.equal([
        ['webhook.updated', origin],
        ['webhook.created', origin],
      ]);
    });
  });
});
