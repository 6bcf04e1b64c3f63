// Benchmark of the pull-request endpoints: submitPullRequest (new pull requests, and
// resubmissions of queued ones), getSubmittedPullRequest, and getQueue on a queue holding
// `--submissions` entries; plus the cost of one provider poll over that queue; plus the curve of
// new submissions against the size of the queue they join (`--sizes`).
//
//   npx tsx scripts/bench-pull-requests.ts [--runs 3] [--duration 10] [--connections 10] [--submissions 1000] [--sizes 100,1000,10000] [--no-workers]
//
// Starts a private redis-server and the service in-process with its workers (embedded database
// in memory, the same code path as `npm start`, so planning passes triggered by submissions
// compete for the CPU as they do in production). Each run uses a fresh repository with
// `--submissions` pull request refs (written in one `git fast-import`) and a fresh running queue
// (concurrency 1, a required status nobody reports: one entry tests, the rest wait in pending).
// The periodic provider poll and reconciler are turned off during the measurements and one poll
// is timed separately. Without the workers, the mergeability of the submissions (decided by the
// planning pass, off the request path) is decided and timed once before the poll.
// The curve: for each size N, a paused queue already holding N entries (held in not_ready, as a
// backlog, inserted directly into the store) receives `--submissions` new pull requests.
// Prints medians over the runs as Markdown tables.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import Koa from 'koa';
import autocannon from 'autocannon';
import { startRedis } from './lib/redis-server.mjs';
import { startTestService, type TestService } from './lib/test-service.js';
import { makeGitRoot, removeGitRoot } from './lib/git-fixtures.js';
import { waitFor } from './lib/wait.js';
import { createBenchRepo } from './lib/bench-repo.js';
import type { RepoRef } from '../shared/platform/repo-ref.js';
import { machineSummary, median } from './lib/bench-stats.js';
import { makeEntry } from './lib/entries.js';
import { ReadinessService } from '../shared/merge-queue/services/readiness-service.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    submissions: { type: 'string', default: '1000' },
    sizes: { type: 'string', default: '100,1000,10000' },
    // --no-workers: the API alone (planning jobs are queued but not run), to tell its cost from the engine's.
    workers: { type: 'boolean', default: true },
  },
  allowNegative: true,
});
const runs = Number(values.runs);
const duration = Number(values.duration);
const connections = Number(values.connections);
const submissions = Number(values.submissions);
const withWorkers = values.workers !== false;
const sizes = values.sizes.split(',').map(Number);
for (const n of [runs, duration, connections, submissions, ...sizes]) {
  if (!Number.isSafeInteger(n) || n < 1) throw new Error('--runs, --duration, --connections, --submissions and --sizes take positive integers');
}

interface Sample {
  rps: number;
  p99: number;
  bad: number;
}

function summarise(result: autocannon.Result): Sample {
  return {
    // total / elapsed rather than the per-second average: a fixed-amount run ends mid-second.
    rps: result.requests.total / result.duration,
    p99: result.latency.p99,
    bad: result.non2xx + result.errors + result.timeouts,
  };
}

/** POSTs `bodyFor(i)` for i = 0, 1, 2, … (amount: that many requests; otherwise `duration` seconds). */
async function load(svc: TestService, endpoint: string, bodyFor: (i: number) => unknown, opts: { amount?: number } = {}): Promise<Sample> {
  let i = 0;
  const result = await autocannon({
    url: `${svc.url}/v1/${endpoint}`,
    connections,
    ...(opts.amount ? { amount: opts.amount } : { duration }),
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': svc.token },
    requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify(bodyFor(i++)) }) }],
  });
  return summarise(result);
}

/** Waits until no planning pass is queued or running (the queue has settled). */
async function planIdle(svc: TestService): Promise<void> {
  await waitFor(
    'planner idle',
    async () => Object.values(await svc.ctx.jobs.queue('plan').getJobCounts('active', 'waiting', 'prioritized')).every((c) => c === 0),
    { timeoutMs: 300_000, intervalMs: 100 },
  );
}

/** Inserts `count` entries held in not_ready (decided, mergeable) into the queue: a backlog the submissions join. */
async function preload(svc: TestService, queueId: string, count: number): Promise<void> {
  const entries = [];
  for (let i = 0; i < count; i++) {
    const seq = await svc.ctx.mergeQueue.store.queues.allocateSeq(queueId);
    entries.push(makeEntry({ queueId, orgId: svc.orgId, prNumber: 1_000_000 + i, seq }));
  }
  for (let i = 0; i < entries.length; i += 200) await Promise.all(entries.slice(i, i + 200).map((e) => svc.ctx.mergeQueue.store.entries.insert(e)));
}

/** Creates the queue (running, or paused) with a required status nobody reports; returns its id. */
async function createQueue(svc: TestService, ref: { repo: RepoRef; targetBranch: string }, state: 'running' | 'paused'): Promise<string> {
  for (const [p, body] of [
    ['/createQueue', ref],
    ['/updateQueue', { ...ref, requiredStatuses: ['ci/test'], ...(state === 'paused' ? { state } : {}) }],
  ] as const) {
    const res = await svc.post(p, body);
    if (res.status !== 200) throw new Error(`${p} answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  const stored = await svc.ctx.mergeQueue.store.queues.find(svc.orgId, ref.repo, ref.targetBranch);
  if (!stored) throw new Error('queue not found');
  return stored.id;
}

async function main(): Promise<void> {
  const redis = await startRedis();
  process.env.REDIS_URL = redis.url;
  const gitRoot = await makeGitRoot();
  const svc = await startTestService({ gitRoot, startWorkers: withWorkers, env: { PROVIDER_POLL_SECONDS: '86400', RECONCILE_SECONDS: '3600' } });

  // The ceiling of this machine for one Node process, measured in every run beside the subject:
  // the machines are shared, so ratios to it compare across runs better than raw rates.
  const hello = new Koa();
  hello.use((ctx) => {
    ctx.body = { hello: 'world' };
  });
  const helloServer = http.createServer(hello.callback()).listen(0, '127.0.0.1');
  await new Promise((r) => helloServer.once('listening', r));
  const helloUrl = `http://127.0.0.1:${(helloServer.address() as AddressInfo).port}/`;

  const results: Record<string, Sample[]> = {
    hello: [],
    submitNew: [],
    resubmit: [],
    getSubmitted: [],
    getQueue: [],
  };
  const pollMs: number[] = [];
  const admitMs: number[] = [];
  const uploadMs: number[] = [];
  const decideMs: number[] = [];
  const curve: Record<number, Sample[]> = {};

  for (let run = 0; run < runs; run++) {
    const repo: RepoRef = { host: 'github.com', owner: 'bench', name: `prs-${run}` };
    await createBenchRepo(gitRoot, repo, submissions);
    const ref = { repo, targetBranch: 'main' };
    await createQueue(svc, ref, 'running');
    const numberOf = (i: number) => (i % submissions) + 1;
    results.hello!.push(summarise(await autocannon({ url: helloUrl, connections, duration })));

    // New pull requests: every request submits a different one (a new entry each).
    const started = performance.now();
    results.submitNew!.push(await load(svc, 'submitPullRequest', (i) => ({ ...ref, pr: { number: numberOf(i) } }), { amount: submissions }));
    if (withWorkers) await planIdle(svc);
    admitMs.push(performance.now() - started);
    const queue = await svc.post<{ enqueuedPullRequests: unknown[] }>('/getQueue', ref);
    if (queue.body.enqueuedPullRequests.length !== submissions) {
      throw new Error(`expected ${submissions} entries, getQueue lists ${queue.body.enqueuedPullRequests.length}`);
    }

    // Resubmitting queued pull requests unchanged: the idempotent path (no write).
    results.resubmit!.push(await load(svc, 'submitPullRequest', (i) => ({ ...ref, pr: { number: numberOf(i) } })));
    results.getSubmitted!.push(await load(svc, 'getSubmittedPullRequest', (i) => ({ ...ref, pr: { number: numberOf(i) } })));
    results.getQueue!.push(await load(svc, 'getQueue', () => ref));

    // One upload of 100,000 impacted targets (about 5 MB of JSON) for a queued pull request.
    const head = (await svc.post<{ prSha: string }>('/getSubmittedPullRequest', { ...ref, pr: { number: 1 } })).body.prSha;
    const targets = Array.from({ length: 100_000 }, (_, i) => `//services/component-${i}/module:unit_test_${run}_${i}`);
    const uploadStarted = performance.now();
    const upload = await svc.post('/setImpactedTargets', { ...ref, pr: { number: 1, sha: head }, impactedTargets: targets });
    if (upload.status !== 200) throw new Error(`setImpactedTargets answered ${upload.status}`);
    uploadMs.push(performance.now() - uploadStarted);

    const stored = await svc.ctx.mergeQueue.store.queues.find(svc.orgId, repo, 'main');
    if (!stored) throw new Error('queue not found');
    if (!withWorkers) {
      // The workers' share of the submissions, done here once: one merge per pull request.
      const provider = await svc.ctx.providers.providerFor(repo);
      if (!provider) throw new Error('repository not found');
      const decideStarted = performance.now();
      const decided = await new ReadinessService({ store: svc.ctx.mergeQueue.store }).decideSubmitted(stored, provider);
      if (decided !== submissions) throw new Error(`decided ${decided} of ${submissions} submissions`);
      decideMs.push(performance.now() - decideStarted);
    }

    // One provider poll over the queue: reads every queued pull request and the target head.
    const pollStarted = performance.now();
    await svc.ctx.mergeQueue.services.sync.syncQueue(stored);
    pollMs.push(performance.now() - pollStarted);

    // Leave nothing behind that later runs would plan around.
    await svc.post('/updateQueue', { ...ref, state: 'paused' });
    if (withWorkers) await planIdle(svc);

    // The curve: new submissions joining a queue that already holds `size` entries.
    for (const size of sizes) {
      const curveRepo: RepoRef = { host: 'github.com', owner: 'bench', name: `curve-${size}-${run}` };
      await createBenchRepo(gitRoot, curveRepo, submissions);
      const curveRef = { repo: curveRepo, targetBranch: 'main' };
      const queueId = await createQueue(svc, curveRef, 'paused');
      await preload(svc, queueId, size);
      const sample = await load(svc, 'submitPullRequest', (i) => ({ ...curveRef, pr: { number: numberOf(i) } }), { amount: submissions });
      (curve[size] ??= []).push(sample);
      if (withWorkers) await planIdle(svc);
    }
    console.error(`run ${run + 1}/${runs} done`);
  }

  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const row = (name: string, samples: Sample[]) => {
    const bad = samples.reduce((n, s) => n + s.bad, 0);
    // Each run's rate relative to the baseline measured in the same run, then the median.
    const ratio = median(samples.map((s, i) => (100 * s.rps) / (results.hello![i]?.rps ?? Number.NaN)));
    return `| ${name} | ${fmt(median(samples.map((s) => s.rps)))} | ${median(samples.map((s) => s.p99))} | ${ratio < 1 ? ratio.toFixed(2) : ratio.toFixed(1)} % | ${samples.map((s) => fmt(s.rps)).join(' · ')} |${bad ? ` **${bad} failed requests**` : ''}`;
  };
  console.log(
    `\n${machineSummary()}; autocannon ${connections} connections; ${runs} runs; ${submissions} pull requests per run; ${withWorkers ? 'with the workers (engine) in the same process' : 'API only (--no-workers)'}\n`,
  );
  console.log('| target | median req/s | median p99 (ms) | of the baseline (median per run) | req/s per run |');
  console.log('|---|---|---|---|---|');
  console.log(row(`bare Koa hello-world (GET, ${duration} s), baseline`, results.hello!));
  console.log(row(`submitPullRequest, ${submissions} new pull requests`, results.submitNew!));
  console.log(row(`submitPullRequest, resubmitting queued ones (${duration} s)`, results.resubmit!));
  console.log(row(`getSubmittedPullRequest (${duration} s)`, results.getSubmitted!));
  console.log(row(`getQueue, ${submissions} entries (${duration} s)`, results.getQueue!));
  console.log(
    `\nSubmission of ${submissions} until ${withWorkers ? 'every entry was admitted (planner idle)' : 'the last answer'}: median ${(median(admitMs) / 1000).toFixed(1)} s; ` +
      `one provider poll over ${submissions} queued pull requests: median ${(median(pollMs) / 1000).toFixed(2)} s (${pollMs.map((m) => (m / 1000).toFixed(2)).join(' · ')}); ` +
      `setImpactedTargets with 100,000 targets: median ${fmt(median(uploadMs))} ms (${uploadMs.map(fmt).join(' · ')}).`,
  );

  if (!withWorkers) {
    console.log(
      `Mergeability of the ${submissions} submissions decided off the request path (what the planning pass does): median ${(median(decideMs) / 1000).toFixed(2)} s (${decideMs.map((m) => (m / 1000).toFixed(2)).join(' · ')}).`,
    );
  }
  console.log(`\nNew submissions (${submissions} per size and run) to a paused queue already holding N entries:\n`);
  console.log('| target | median req/s | median p99 (ms) | of the baseline (median per run) | req/s per run |');
  console.log('|---|---|---|---|---|');
  for (const size of sizes) console.log(row(`submitPullRequest, queue holding ${size.toLocaleString('en-US')}`, curve[size] ?? []));

  helloServer.close();
  await svc.close();
  await removeGitRoot(gitRoot);
  await redis.stop();
}

await main();
