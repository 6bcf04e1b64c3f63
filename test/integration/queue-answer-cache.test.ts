// getQueue's answer is cached per process until the queue's revision changes (issue 16): every kind
// of change shows in the next answer — made through this instance's API, by its workers, or by
// another instance sharing the database (which has its own cache) — and pollers that send the
// answer's ETag back get 304 while nothing changed; clients that accept brotli or gzip get it compressed.
import { rawPost } from '../../scripts/lib/raw-http.js';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createPullRequest, createRepo, DEFAULT_REPO, type FixtureRepo } from '../../scripts/lib/git-fixtures.js';
import { waitFor } from '../../scripts/lib/wait.js';
import type { Database, StoredDoc } from '../../shared/platform/database/collection.js';

const repo = DEFAULT_REPO;
const ref = { repo, targetBranch: 'main' };

interface QueueAnswer {
  state: string;
  concurrency: number;
  enqueuedPullRequests: { prNumber: number; state: string; priorityName: string }[];
  warnings: { code: string; testRunIds: string[] }[];
}

/** The same database, without the right to close it: the instance that opened it does. */
function borrowed(db: Database): Database {
  return { kind: db.kind, collection: <T extends StoredDoc>(name: string) => db.collection<T>(name), ping: () => db.ping(), close: async () => {} };
}

/** getQueue over node:http, which (unlike fetch) hands back the bytes as sent. */
const rawGetQueue = (s: TestService, headers: Record<string, string>) =>
  rawPost(`${s.url}/v1/getQueue`, { 'x-api-token': s.token, 'content-type': 'application/json', ...headers }, JSON.stringify(ref));

describe('getQueue: cached answer, ETag and 304', function () {
  this.timeout(60_000);
  let svc: TestService;
  let fx: FixtureRepo;

  const getQueue = async (s: TestService = svc) => {
    const res = await s.post<QueueAnswer>('/getQueue', ref);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };

  const pr = (n: number) =>
    createPullRequest(fx, {
      number: n,
      commits: [{ message: `Change ${n}`, files: { [`f${n}.txt`]: `${n}\n` } }],
      metadata: { title: `Change ${n}`, author: 'dev', base: 'main' },
    });

  afterEach(async () => {
    await svc.close();
  });

  describe('without workers', () => {
    beforeEach(async () => {
      svc = await startTestService();
      fx = await createRepo(svc.gitRoot, { repo });
      expect((await svc.post('/createQueue', ref)).status).to.equal(200);
    });

    it('answers 304 without a body to a poller holding the current ETag, and 200 with a new ETag after a change', async () => {
      const first = await svc.raw('POST', '/v1/getQueue', {
        body: JSON.stringify(ref),
        headers: { 'x-api-token': svc.token, 'content-type': 'application/json' },
      });
      expect(first.status).to.equal(200);
      const etag = first.headers.get('etag') ?? '';
      expect(etag).to.match(/^"[A-Za-z0-9_-]{43}"$/);
      const poll = (tag: string) =>
        svc.raw('POST', '/v1/getQueue', {
          body: JSON.stringify(ref),
          headers: { 'x-api-token': svc.token, 'content-type': 'application/json', 'if-none-match': tag },
        });
      const unchanged = await poll(etag);
      expect(unchanged.status).to.equal(304);
      expect(unchanged.body).to.equal('');
      expect(unchanged.headers.get('etag')).to.equal(etag);
      expect((await poll('"something-else"')).status).to.equal(200);
      expect((await svc.post('/updateQueue', { ...ref, concurrency: 3 })).status).to.equal(200);
      const changed = await poll(etag);
      expect(changed.status).to.equal(200);
      expect((changed.body as QueueAnswer).concurrency).to.equal(3);
      expect(changed.headers.get('etag')).to.not.equal(etag);
      // Another organisation's token is told the queue does not exist, cache or not.
      const other = await svc.addOrg('other-org');
      expect((await svc.post('/getQueue', ref, { token: other.token })).status).to.equal(404);
    });

    it('compresses the answer for clients that accept brotli or gzip, with an ETag per encoding, and 304s each', async () => {
      for (const n of [1, 2, 3]) {
        await pr(n);
        expect((await svc.post('/submitPullRequest', { ...ref, pr: { number: n } })).status).to.equal(200);
      }
      const plain = await rawGetQueue(svc, {});
      expect(plain.headers['content-encoding']).to.equal(undefined);
      expect(plain.body.length, 'an answer worth compressing').to.be.greaterThan(1024);
      const decoders = { br: brotliDecompressSync, gzip: gunzipSync } as const;
      for (const [encoding, accept] of [
        ['br', 'br, gzip;q=0.9'],
        ['gzip', 'gzip;q=1, br;q=0.5'],
      ] as const) {
        const res = await rawGetQueue(svc, { 'accept-encoding': accept });
        expect(res.status).to.equal(200);
        expect(res.headers['content-encoding'], accept).to.equal(encoding);
        expect(res.headers.vary).to.match(/accept-encoding/i);
        expect(res.body.length).to.be.lessThan(plain.body.length / 2);
        expect(decoders[encoding](res.body).equals(plain.body), `${encoding} decodes to the plain answer`).to.equal(true);
        expect(res.headers.etag).to.equal(`${plain.headers.etag!.slice(0, -1)}-${encoding}"`);
        const again = await rawGetQueue(svc, { 'accept-encoding': accept, 'if-none-match': res.headers.etag! });
        expect(again.status).to.equal(304);
        expect(again.body.length).to.equal(0);
        // The plain answer's tag does not stand for the compressed one, nor the other way round.
        expect((await rawGetQueue(svc, { 'accept-encoding': accept, 'if-none-match': plain.headers.etag! })).status).to.equal(200);
        expect((await rawGetQueue(svc, { 'if-none-match': res.headers.etag! })).status).to.equal(200);
      }
      expect((await rawGetQueue(svc, { 'accept-encoding': 'identity' })).headers['content-encoding']).to.equal(undefined);
    });

    it('shows settings, state, submissions, priorities and cancellations made through the API', async () => {
      await getQueue();
      await svc.post('/updateQueue', { ...ref, concurrency: 5 });
      expect((await getQueue()).concurrency).to.equal(5);
      await svc.post('/updateQueue', { ...ref, state: 'paused' });
      expect((await getQueue()).state).to.equal('paused');
      await pr(1);
      expect((await svc.post('/submitPullRequest', { ...ref, pr: { number: 1 } })).status).to.equal(200);
      expect((await getQueue()).enqueuedPullRequests.map((e) => e.prNumber)).to.deep.equal([1]);
      await svc.post('/submitPullRequest', { ...ref, pr: { number: 1 }, priority: 'high' });
      expect((await getQueue()).enqueuedPullRequests[0]?.priorityName).to.equal('high');
      await svc.post('/cancelPullRequest', { ...ref, pr: { number: 1 } });
      expect((await getQueue()).enqueuedPullRequests).to.deep.equal([]);
      await svc.post('/deleteQueue', ref);
      expect((await svc.post('/getQueue', ref)).status).to.equal(404);
    });

    it('shows a change made by another instance sharing the database, which keeps its own cache', async () => {
      const other = await startTestService({ database: borrowed(svc.ctx.db), gitRoot: svc.gitRoot });
      try {
        expect((await getQueue()).concurrency).to.equal(1);
        expect((await getQueue(other)).concurrency).to.equal(1);
        expect((await other.post('/updateQueue', { ...ref, concurrency: 4 })).status).to.equal(200);
        expect((await getQueue()).concurrency).to.equal(4);
        await pr(2);
        expect((await svc.post('/submitPullRequest', { ...ref, pr: { number: 2 } })).status).to.equal(200);
        expect((await getQueue(other)).enqueuedPullRequests.map((e) => e.prNumber)).to.deep.equal([2]);
      } finally {
        await other.close();
      }
    });
  });

  describe('with workers', () => {
    beforeEach(async () => {
      svc = await startTestService({ startWorkers: true });
      fx = await createRepo(svc.gitRoot, { repo });
      expect((await svc.post('/createQueue', ref)).status).to.equal(200);
      await svc.post('/updateQueue', { ...ref, requiredStatuses: ['ci/test'] });
    });

    it('shows the engine’s transitions, a test run’s stall finding and its conclusion', async () => {
      await pr(1);
      await getQueue();
      await svc.post('/submitPullRequest', { ...ref, pr: { number: 1 } });
      await waitFor('PR #1 testing in getQueue', async () => ((await getQueue()).enqueuedPullRequests[0]?.state === 'testing' ? true : undefined));
      const queueId = (await svc.ctx.mergeQueue.store.queues.find(svc.orgId, repo, 'main'))?.id ?? '';
      const run = await waitFor('the run built', async () => (await svc.ctx.mergeQueue.store.testRuns.listOpen(queueId)).find((r) => r.sha !== null));
      // The watchdog's finding, written as its job would (by any process): a warning appears.
      await svc.ctx.mergeQueue.store.testRuns.recordStatusWatch(run.id, { firedAt: new Date(), missing: ['ci/test'], neverReported: [] });
      expect((await getQueue()).warnings.map((w) => [w.code, w.testRunIds])).to.deep.equal([['required_status_not_reported', [run.id]]]);
      // CI reports: the finding clears, the run concludes, the pull request merges.
      expect((await svc.post('/setCommitStatus', { repo, sha: run.sha, context: 'ci/test', state: 'success' })).status).to.equal(200);
      await waitFor('PR #1 gone from getQueue', async () => ((await getQueue()).enqueuedPullRequests.length === 0 ? true : undefined));
      expect((await getQueue()).warnings).to.deep.equal([]);
    });
  });
});
