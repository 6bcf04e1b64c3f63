// Benchmark of the pull-request endpoints: submitPullRequest (new pull requests, and
// resubmissions of queued ones), getSubmittedPullRequest, and getQueue on a queue holding
// `--submissions` entries; plus the cost of one provider poll over that queue.
//
//   npx tsx scripts/bench-pull-requests.ts [--runs 3] [--duration 10] [--connections 10] [--submissions 1000]
//
// Starts a private redis-server and the service in-process with its workers (embedded database
// in memory, the same code path as `npm start`, so planning passes triggered by submissions
// compete for the CPU as they do in production). Each run uses a fresh repository with
// `--submissions` pull request refs (written in one `git fast-import`) and a fresh running queue
// (concurrency 1, a required status nobody reports: one entry tests, the rest wait in pending).
// The periodic provider poll and reconciler are turned off during the measurements and one poll
// is timed separately. Prints medians over the runs as a Markdown table.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import Koa from 'koa';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import autocannon from 'autocannon';
import { startRedis } from './lib/redis-server.mjs';
import { startTestService, type TestService } from './lib/test-service.js';
import { makeGitRoot, removeGitRoot } from './lib/git-fixtures.js';
import { waitFor } from './lib/wait.js';
import { gitText, runGit } from '../shared/providers/local/git-runner.js';
import { conventionalRepositoryPath } from '../shared/providers/local/repo-path.js';
import type { RepoRef } from '../shared/repo-ref.js';
import { machineSummary, median } from './lib/bench-stats.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    submissions: { type: 'string', default: '1000' },
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

interface Sample {
  rps: number;
  p99: number;
  bad: number;
}

/** A bare repository with `main` and pull requests 1..count, each adding its own file. */
async function createBenchRepo(root: string, repo: RepoRef, count: number): Promise<void> {
  const dir = conventionalRepositoryPath(root, repo);
  await mkdir(path.dirname(dir), { recursive: true });
  await runGit(['init', '--quiet', '--bare', '--initial-branch=main', dir]);
  const who = 'Bench Author <bench@example.com> 1700000000 +0000';
  const chunks: string[] = [];
  const readme = '# bench\n';
  chunks.push(`commit refs/heads/main\nmark :1\nauthor ${who}\ncommitter ${who}\ndata 8\nInitial\nM 100644 inline README.md\ndata ${readme.length}\n${readme}\n`);
  for (let n = 1; n <= count; n++) {
    const msg = `Change ${n}\n`;
    const content = `${n}\n`;
    chunks.push(
      `commit refs/pull/${n}/head\nauthor ${who}\ncommitter ${who}\ndata ${msg.length}\n${msg}from :1\nM 100644 inline changes/pr-${n}.txt\ndata ${content.length}\n${content}\n`,
    );
  }
  await gitText(['fast-import', '--quiet'], { gitDir: dir, input: chunks.join('') });
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

  for (let run = 0; run < runs; run++) {
    const repo: RepoRef = { host: 'github.com', owner: 'bench', name: `prs-${run}` };
    await createBenchRepo(gitRoot, repo, submissions);
    const ref = { repo, targetBranch: 'main' };
    for (const [p, body] of [
      ['/createQueue', ref],
      ['/updateQueue', { ...ref, requiredStatuses: ['ci/test'] }],
    ] as const) {
      const res = await svc.post(p, body);
      if (res.status !== 200) throw new Error(`${p} answered ${res.status}: ${JSON.stringify(res.body)}`);
    }
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

    // One provider poll over the queue: reads every queued pull request and the target head.
    const stored = await svc.ctx.store.queues.find(svc.orgId, repo, 'main');
    if (!stored) throw new Error('queue not found');
    const pollStarted = performance.now();
    await svc.ctx.services.sync.syncQueue(stored);
    pollMs.push(performance.now() - pollStarted);

    // Leave nothing behind that later runs would plan around.
    await svc.post('/updateQueue', { ...ref, state: 'paused' });
    if (withWorkers) await planIdle(svc);
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

  helloServer.close();
  await svc.close();
  await removeGitRoot(gitRoot);
  await redis.stop();
}

await main();
