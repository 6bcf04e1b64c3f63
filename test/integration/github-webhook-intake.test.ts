// POST /webhooks/github against strangers (issue 22 §3): unsigned and oversized requests are
// answered before their body is read; a body is held in memory only up to a bound however large
// and however many arrive at once; an empty or non-JSON body is a 4xx and is not recorded; a
// captured body replayed under a new delivery id does not act twice; installation events sync
// only the repositories they name.
import http from 'node:http';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { sign } from '@octokit/webhooks-methods';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createRepo, makeGitRoot, removeGitRoot } from '../../scripts/lib/git-fixtures.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/github-double.js';
import { payloadFor } from '../doubles/github/webhook-payloads.js';
import { GitHubWebhooks, MAX_BODY_BYTES, MAX_READING, MEMORY_BYTES } from '../../shared/github/services/github-webhooks.js';
import { SpooledBody } from '../../shared/platform/runtime/spooled-body.js';
import { actKeyOf } from '../../shared/github/domain/delivery-act-key.js';
import { createLogger } from '../../shared/platform/logging.js';
import { RETENTION_DAYS, DbGitHubDeliveryRepository, GitHubDeliveryRepository } from '../../shared/github/store/github-delivery-repository.js';
import { openEmbeddedDatabase } from '../../shared/platform/database/embedded/embedded-database.js';
import { waitFor } from '../../scripts/lib/wait.js';
import type { GitHubWebhookEvents } from '../../shared/github/services/webhook-events.js';

const SECRET = 'webhook-secret-of-the-intake-tests';
const repo = { owner: 'acme', name: 'widgets', installationId: 1 };

/** Sends headers only (the body is promised by Content-Length but never written) and resolves with the answer. */
function headersOnly(port: number, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/webhooks/github', headers });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

describe('GitHub webhook intake', function () {
  this.timeout(30_000);
  let root: string;
  let double: GitHubDouble;
  let svc: TestService;
  let port: number;

  before(async () => {
    root = await makeGitRoot();
    double = await startGitHubDouble(root);
    await createRepo(root, { repo: { host: 'github.com', owner: 'acme', name: 'widgets' } });
    svc = await startTestService({ env: { ...double.appEnv, GITHUB_WEBHOOK_SECRET: SECRET } });
    port = Number(new URL(svc.url).port);
  });
  after(async () => {
    await svc.close();
    await double.close();
    await removeGitRoot(root);
  });

  const deliveries = () => svc.ctx.db.collection('github_webhook_deliveries');
  const post = async (event: string, body: string, headers: Record<string, string> = {}) =>
    svc.raw('POST', '/webhooks/github', {
      body,
      headers: {
        'content-type': 'application/json',
        'x-github-event': event,
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': await sign(SECRET, body),
        ...headers,
      },
    });

  it('answers an unsigned or oversized request before its body arrives', async () => {
    const unsigned = await headersOnly(port, {
      'content-type': 'application/json',
      'content-length': String(20 * 1024 * 1024),
      'x-github-event': 'push',
      'x-github-delivery': 'unsigned',
    });
    expect(unsigned.status).to.equal(401);
    expect(JSON.parse(unsigned.body).error.code).to.equal('invalid_signature');
    const oversized = await headersOnly(port, {
      'content-type': 'application/json',
      'content-length': String(MAX_BODY_BYTES + 1),
      'x-github-event': 'push',
      'x-github-delivery': 'oversized',
      'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
    });
    expect(oversized.status).to.equal(413);
    expect(await deliveries().countDocuments({})).to.equal(0);
  });

  it('answers an empty body 401 and a signed body that is not a JSON object 400, never 5xx, and records neither', async () => {
    const empty = await svc.raw('POST', '/webhooks/github', {
      headers: { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}`, 'x-github-event': 'push', 'x-github-delivery': 'empty' },
    });
    expect(empty.status).to.equal(401);
    for (const body of ['not json', '[1,2]', 'null']) {
      const res = await post('push', body);
      expect(res.status, body).to.equal(400);
      expect((res.body as { error: { code: string } }).error.code, body).to.equal('invalid_payload');
    }
    expect(await deliveries().countDocuments({})).to.equal(0);
  });

  it('keeps only http(s) links of the CI results GitHub relays (a status target_url, a check run details_url)', async () => {
    const ghRepo = { host: 'github.com', owner: 'acme', name: 'widgets' };
    expect((await svc.post('/createQueue', { repo: ghRepo, targetBranch: 'main' })).status).to.equal(200);
    const queue = (await svc.ctx.mergeQueue.store.queues.find(svc.orgId, ghRepo, 'main'))!;
    const sha = 'd'.repeat(40);
    await svc.ctx.mergeQueue.store.testRuns.insert({
      id: 'links-run',
      orgId: svc.orgId,
      queueId: queue.id,
      kind: 'main',
      entryIds: ['e1'],
      baseEntryIds: [],
      targetSha: 't'.repeat(40),
      branch: 'trunk-merge/pr-1/links-run',
      sha,
      tree: null,
      status: 'in_progress',
      requiredStatuses: ['ci/never'],
      requiredStatusesSource: 'merge_instance',
      deadlineAt: null,
      createdAt: new Date(),
      concludedAt: null,
      conclusionReason: null,
      branchDeleted: false,
      bisectionOf: null,
      version: 1,
    });
    const ci = svc.ctx.github!.ciResults;
    await ci.record(ghRepo, sha, [
      { context: 'ci/status', state: 'pending', targetUrl: 'javascript:alert(document.cookie)' },
      {
        context: 'ci/check',
        state: 'pending',
        targetUrl: 'data:text/html,<script>1</script>',
        checkRun: { checkRunId: 5, suiteId: 50, url: 'javascript:alert(1)', status: 'in_progress', conclusion: null },
      },
      { context: 'ci/good', state: 'pending', targetUrl: 'https://ci.example/runs/9' },
    ]);
    const statuses = await svc.ctx.mergeQueue.store.commitStatuses.forCommit(svc.orgId, 'github.com/acme/widgets', sha);
    expect(Object.fromEntries(statuses.map((st) => [st.context, st.targetUrl]))).to.deep.equal({
      'ci/status': null,
      'ci/check': null,
      'ci/good': 'https://ci.example/runs/9',
    });
    const checkRuns = await svc.ctx.github!.hooks.checkSuites!(ghRepo, sha);
    expect(checkRuns.flatMap((suite) => suite.checkRuns.map((r) => r.url))).to.deep.equal(['']);
  });

  it('drops a body replayed under a new delivery id when it asks for something: a comment, a label, a push, a status', async () => {
    const bodies: [string, Record<string, unknown>][] = [
      [
        'issue_comment',
        payloadFor('issue_comment', 'created', repo, {
          comment: { id: 7001, body: '/trunk merge', created_at: new Date().toISOString(), user: { login: 'alice', type: 'User' } },
        }),
      ],
      ['push', payloadFor('push', undefined, repo, { ref: 'refs/heads/main', before: 'a'.repeat(40), after: 'b'.repeat(40) })],
      ['status', payloadFor('status', undefined, repo, { id: 424242, sha: 'c'.repeat(40), state: 'failure', context: 'ci/test' })],
    ];
    for (const [event, payload] of bodies) {
      const body = JSON.stringify(payload);
      expect(actKeyOf(event, payload), event).to.be.a('string');
      expect((await post(event, body)).status, `${event} first`).to.equal(202);
      const replay = await post(event, body);
      expect(replay.status, `${event} replayed`).to.equal(200);
      expect(replay.body, event).to.deep.equal({ delivery: 'duplicate' });
    }
    expect(await deliveries().countDocuments({})).to.equal(bodies.length);
  });
});

describe('GitHub webhook deliveries: kept for a limited time', () => {
  it('forgets a delivery, and so its act key, RETENTION_DAYS after it arrived (the TTL sweep)', async () => {
    const db = await openEmbeddedDatabase({});
    try {
      const repository = new DbGitHubDeliveryRepository(db);
      await repository.ensureIndexes();
      const now = Date.now();
      expect(await repository.record('old', 'push', '{}', 'push:1:refs/heads/main:a:b', new Date(now - (RETENTION_DAYS + 1) * 86_400_000))).to.equal(true);
      expect(await repository.record('recent', 'push', '{}', 'push:1:refs/heads/main:b:c', new Date(now - 86_400_000))).to.equal(true);
      expect(db.sweepExpired(now)).to.equal(1);
      // The old act key is free again (a replay that old is refused by its signed time instead).
      expect(await repository.record('again', 'push', '{}', 'push:1:refs/heads/main:a:b', new Date(now))).to.equal(true);
      expect(await repository.record('replayed', 'push', '{}', 'push:1:refs/heads/main:b:c', new Date(now))).to.equal(false);
    } finally {
      await db.close();
    }
  });
});

describe('GitHub webhook intake: bounded reading', () => {
  /** A body that yields one chunk and then waits until released. */
  function slowBody(chunk: Buffer): { body: AsyncIterable<Buffer>; started: () => boolean; release: () => void } {
    let started = false;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    return {
      started: () => started,
      release: () => release(),
      body: (async function* () {
        started = true;
        yield chunk;
        await released;
      })(),
    };
  }

  it('reads at most MAX_READING bodies at once; the others wait without being read', async () => {
    const recorded: string[] = [];
    const webhooks = new GitHubWebhooks({
      secret: SECRET,
      deliveries: {
        record: async (id: string) => {
          recorded.push(id);
          return true;
        },
      } as unknown as GitHubDeliveryRepository,
      events: {} as GitHubWebhookEvents,
      enqueue: async () => undefined,
      logger: createLogger('silent'),
    });
    const senders = Array.from({ length: MAX_READING + 3 }, () => slowBody(Buffer.from('{"zen":"x"}')));
    const answers = senders.map((s, i) =>
      webhooks
        .receive({ event: 'ping', deliveryId: `d${i}`, signature: `sha256=${'0'.repeat(64)}`, declaredLength: null, body: s.body })
        .catch((err: Error) => err),
    );
    await waitFor('the first bodies read', async () => senders.filter((s) => s.started()).length >= MAX_READING);
    // A few more turns of the event loop: a limiter that let more through would have by now.
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(senders.filter((s) => s.started()).length).to.equal(MAX_READING);
    for (const s of senders) s.release();
    const settled = await Promise.all(answers);
    // Every one was read in its turn, and refused for its (wrong) signature; none was recorded.
    expect(settled.map((a) => (a instanceof Error ? (a as { code?: string }).code : a))).to.deep.equal(senders.map(() => 'invalid_signature'));
    expect(recorded).to.deep.equal([]);
  });

  it('holds at most MEMORY_BYTES of a body in memory and the rest in a file it removes', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'openmq-spool-'));
    try {
      const body = new SpooledBody({ memoryBytes: MEMORY_BYTES, maxBytes: MAX_BODY_BYTES }, dir);
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let most = 0;
      for (let i = 0; i < 40; i++) {
        await body.append(chunk);
        most = Math.max(most, body.inMemoryBytes);
      }
      expect(most).to.be.at.most(MEMORY_BYTES);
      expect(body.spilled).to.equal(true);
      expect(readdirSync(dir)).to.have.length(1);
      expect((await body.text()).length).to.equal(40 * chunk.length);
      await body.discard();
      expect(readdirSync(dir)).to.deep.equal([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
