// Benchmark of getQueue on long queues (issue 16), beside its ceiling measured in the same run: a
// bare Koa server answering the very bytes getQueue answers, from memory.
//
//   npx tsx scripts/bench-get-queue.ts [--sizes 100,1000,10000] [--runs 3] [--duration 10] [--connections 10]
//
// For each size, a private redis-server and the service in-process (embedded database in memory,
// the API as `npm start` serves it, no workers: the queue does not change while it is read) get a
// queue holding that many pending entries, written straight to the store. Then, per run, with
// autocannon at `connections` connections for `duration` seconds each:
//   - bare Koa hello-world (GET), the machine's baseline;
//   - bare Koa answering getQueue's bytes (POST, the ceiling: no token, no database, no JSON work);
//   - getQueue (POST), the cached answer;
//   - getQueue with If-None-Match holding its ETag: 304 without a body (what pollers get);
//   - bare Koa answering getQueue's brotli bytes with Content-Encoding: br (the compressed ceiling);
//   - getQueue with Accept-Encoding: br (the cached answer, compressed once per revision);
// and the time of one getQueue just after a change (the answer recomputed), median of 20.
// Every request must answer 200 (or 304 where expected); the table flags anything else.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Koa from 'koa';
import { startRedis } from './lib/redis-server.mjs';
import { rawPost } from './lib/raw-http.js';
import { startTestService, type TestService } from './lib/test-service.js';
import { createRepo, DEFAULT_REPO, makeGitRoot, removeGitRoot } from './lib/git-fixtures.js';
import { makeEntry } from './lib/entries.js';
import { machineSummary, median } from './lib/bench-stats.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100,1000,10000' },
    runs: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
  },
});
const SIZES = values.sizes.split(',').map(Number);
const RUNS = Number(values.runs);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const ref = { repo: DEFAULT_REPO, targetBranch: 'main' };

interface Sample {
  rps: number;
  p99: number;
  /** Answers that were not the expected status. */
  unexpected: number;
}

async function measure(url: string, init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string }, expectStatus = 200): Promise<Sample> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION,
    method: init.method,
    headers: init.headers ?? {},
    ...(init.body ? { body: init.body } : {}),
  });
  const byStatus = result.statusCodeStats as Record<string, { count: number } | undefined>;
  const expected = byStatus[String(expectStatus)]?.count ?? 0;
  return { rps: result.requests.average, p99: result.latency.p99, unexpected: result.requests.total - expected + result.errors + result.timeouts };
}

function listen(app: Koa): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(app.callback()).listen(0, '127.0.0.1');
  return new Promise((resolve) => server.once('listening', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` })));
}

async function seed(svc: TestService, size: number): Promise<string> {
  const queue = await svc.ctx.mergeQueue.store.queues.find(svc.orgId, DEFAULT_REPO, 'main');
  if (!queue) throw new Error('queue not created');
  for (let i = 1; i <= size; i++) {
    await svc.ctx.mergeQueue.store.entries.insert(
      makeEntry({
        queueId: queue.id,
        orgId: svc.orgId,
        prNumber: i,
        seq: i,
        state: 'pending',
        prTitle: `Change number ${i} of the monorepo`,
        prSha: i.toString(16).padStart(40, '0'),
      }),
    );
  }
  return queue.id;
}

interface SizeResult {
  size: number;
  bytes: number;
  hello: Sample[];
  ceiling: Sample[];
  cached: Sample[];
  notModified: Sample[];
  brBytes: number;
  ceilingBr: Sample[];
  cachedBr: Sample[];
  recomputeMs: number;
}

/** An answer's bytes as sent (fetch would decode them). */
async function benchSize(size: number): Promise<SizeResult> {
  const gitRoot = await makeGitRoot();
  await createRepo(gitRoot, { repo: DEFAULT_REPO });
  const svc = await startTestService({ gitRoot });
  try {
    await svc.post('/createQueue', ref);
    const queueId = await seed(svc, size);
    const headers = { 'content-type': 'application/json', 'x-api-token': svc.token };
    const body = JSON.stringify(ref);
    // The plain answer as autocannon asks for it (no Accept-Encoding: fetch would add one).
    const first = await rawPost(`${svc.url}/v1/getQueue`, headers, body);
    const etag = typeof first.headers.etag === 'string' ? first.headers.etag : '';
    const bytes = first.body;
    if (first.headers['content-encoding'] !== undefined || !etag) throw new Error('getQueue did not answer plain JSON with an ETag');

    const hello = new Koa().use((ctx) => {
      ctx.body = { hello: 'world' };
    });
    const ceiling = new Koa().use((ctx) => {
      ctx.type = 'application/json';
      ctx.body = bytes;
    });
    const brHeaders = { ...headers, 'accept-encoding': 'br' };
    const compressed = await rawPost(`${svc.url}/v1/getQueue`, brHeaders, body);
    if (compressed.headers['content-encoding'] !== 'br') throw new Error('getQueue did not answer brotli');
    const ceilingBr = new Koa().use((ctx) => {
      ctx.type = 'application/json';
      ctx.set('Content-Encoding', 'br');
      ctx.body = compressed.body;
    });
    const [h, c, cb] = await Promise.all([listen(hello), listen(ceiling), listen(ceilingBr)]);
    const result: SizeResult = {
      size,
      bytes: bytes.length,
      hello: [],
      ceiling: [],
      cached: [],
      notModified: [],
      brBytes: compressed.body.length,
      ceilingBr: [],
      cachedBr: [],
      recomputeMs: 0,
    };
    try {
      const getQueueUrl = `${svc.url}/v1/getQueue`;
      for (let run = 0; run < RUNS; run++) {
        result.hello.push(await measure(h.url, { method: 'GET' }));
        result.ceiling.push(await measure(c.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
        result.cached.push(await measure(getQueueUrl, { method: 'POST', headers, body }));
        result.notModified.push(await measure(getQueueUrl, { method: 'POST', headers: { ...headers, 'if-none-match': etag }, body }, 304));
        result.ceilingBr.push(await measure(cb.url, { method: 'POST', headers: { 'content-type': 'application/json', 'accept-encoding': 'br' }, body }));
        result.cachedBr.push(await measure(getQueueUrl, { method: 'POST', headers: brHeaders, body }));
      }
      // A change (a resubmission's priority would do; a revision bump is what any write does) and
      // the one call that recomputes the answer.
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        await svc.ctx.mergeQueue.store.queueRevisions.bump(queueId);
        const t0 = performance.now();
        const res = await svc.raw('POST', '/v1/getQueue', { body, headers });
        times.push(performance.now() - t0);
        if (res.status !== 200) throw new Error(`getQueue answered ${res.status}`);
      }
      result.recomputeMs = median(times);
    } finally {
      h.server.close();
      c.server.close();
      cb.server.close();
    }
    return result;
  } finally {
    await svc.close();
    await removeGitRoot(gitRoot);
  }
}

const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(1)} %`;
const rps = (s: Sample[]) => median(s.map((x) => x.rps));
const p99 = (s: Sample[]) => median(s.map((x) => x.p99));
const perRun = (s: Sample[]) => s.map((x) => Math.round(x.rps).toLocaleString('en')).join(' · ');
const flag = (s: Sample[]) => (s.some((x) => x.unexpected > 0) ? ` ⚠ ${s.reduce((n, x) => n + x.unexpected, 0)} unexpected answers` : '');

async function main(): Promise<void> {
  const redis = await startRedis();
  process.env.REDIS_URL = redis.url;
  console.log(`machine: ${machineSummary()}; ${RUNS} runs × ${DURATION} s, ${CONNECTIONS} connections`);
  try {
    for (const size of SIZES) {
      const r = await benchSize(size);
      const ceiling = rps(r.ceiling);
      console.log(
        `\n${size.toLocaleString('en')} entries: answer ${(r.bytes / 1024).toFixed(0)} KiB (${(r.brBytes / 1024).toFixed(0)} KiB brotli); recomputed after a change in ${r.recomputeMs.toFixed(1)} ms (median of 20)`,
      );
      console.log('| target | median req/s | median p99 (ms) | of the ceiling | of hello-world | req/s per run |');
      console.log('|---|---|---|---|---|---|');
      for (const [name, s] of [
        ['bare Koa hello-world (GET)', r.hello],
        ['bare Koa answering the same bytes (ceiling)', r.ceiling],
        ['getQueue (cached answer)', r.cached],
        ['getQueue with If-None-Match (304)', r.notModified],
      ] as const) {
        console.log(
          `| ${name} | ${Math.round(rps(s)).toLocaleString('en')} | ${p99(s)} | ${pct(rps(s), ceiling)} | ${pct(rps(s), rps(r.hello))} | ${perRun(s)}${flag(s)} |`,
        );
      }
      // Compressed: each beside the ceiling of the same (brotli) bytes.
      for (const [name, s] of [
        ['bare Koa answering the same brotli bytes (compressed ceiling)', r.ceilingBr],
        ['getQueue, Accept-Encoding: br', r.cachedBr],
      ] as const) {
        console.log(
          `| ${name} | ${Math.round(rps(s)).toLocaleString('en')} | ${p99(s)} | ${pct(rps(s), rps(r.ceilingBr))} of the compressed ceiling | ${pct(rps(s), rps(r.hello))} | ${perRun(s)}${flag(s)} |`,
        );
      }
    }
  } finally {
    await redis.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
