// Benchmark of the engine's reaction time (issue 4): from a final CI status arriving
// (POST /v1/setCommitStatus) to the next run's test branch existing in the repository.
//
//   npx tsx scripts/bench-status-to-branch.ts [--iterations 50] [--runs 3]
//
// Starts a private redis-server and, per run, the service in-process with its workers (embedded
// database in memory, a local bare repository: the same code paths as `npm start`). The queue
// has concurrency 1, so the next run can only start once the current one is decided:
// - `pass → merge → next run`: the status passes the run; the engine concludes it, merges the
//   pull request onto main, and builds the next pull request's branch on the new head;
// - `fail → next run`: the status fails the run; the engine fails its pull request and builds
//   the next one's branch (no merge).
// Each iteration waits for the current run's branch, then times from just before the POST to
// the moment the next pull request's ref (refs/heads/trunk-merge/pr-<N>/<id>) appears in the
// bare repository, polled on the file system every millisecond (the local provider writes loose
// refs with `git update-ref`).
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startRedis } from './lib/redis-server.mjs';
import { startTestService, type TestService } from './lib/test-service.js';
import { createPullRequest, createRepo, DEFAULT_REPO, type FixtureRepo } from './lib/git-fixtures.js';
import { machineSummary, median, percentile } from './lib/bench-stats.js';

const { values } = parseArgs({
  options: {
    iterations: { type: 'string', default: '50' },
    runs: { type: 'string', default: '3' },
  },
});
const ITERATIONS = Number(values.iterations);
const RUNS = Number(values.runs);
const ref = { repo: DEFAULT_REPO, targetBranch: 'main' };

/** The run id of pull request n's test branch once the branch exists, polling every millisecond. */
async function branchOf(fx: FixtureRepo, n: number, timeoutMs = 30_000): Promise<{ runId: string }> {
  const dir = path.join(fx.dir, 'refs', 'heads', 'trunk-merge', `pr-${n}`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      // `<id>.lock` is git writing the ref; the ref exists once it is renamed to `<id>`.
      const names = (await readdir(dir)).filter((name) => !name.endsWith('.lock'));
      if (names.length > 0) return { runId: names[0]! };
    } catch {
      // Not there yet.
    }
    if (Date.now() > deadline) throw new Error(`no test branch for PR #${n} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

async function builtSha(svc: TestService, runId: string): Promise<string> {
  for (;;) {
    const res = await svc.post<{ testBranchSha: string }>('/getMergeQueueTestingDetails', { ...ref, testRunId: runId });
    if (res.status !== 200) throw new Error(`getMergeQueueTestingDetails answered ${res.status}`);
    if (res.body.testBranchSha) return res.body.testBranchSha;
    await new Promise((r) => setTimeout(r, 2));
  }
}

interface Phase {
  name: string;
  state: 'success' | 'failure';
  samples: number[];
}

async function oneRun(): Promise<Phase[]> {
  const svc = await startTestService({ startWorkers: true });
  const fx = await createRepo(svc.gitRoot, { repo: DEFAULT_REPO, files: { 'README.md': '# bench\n' } });
  await svc.post('/createQueue', ref);
  // Paused while the pull requests are submitted, so they start one by one from the first.
  await svc.post('/updateQueue', { ...ref, requiredStatuses: ['ci/test'], concurrency: 1, state: 'paused' });
  const total = 2 * ITERATIONS + 1;
  for (let n = 1; n <= total; n++) {
    await createPullRequest(fx, {
      number: n,
      commits: [{ message: `Change ${n}`, files: { [`f${n}.txt`]: `${n}\n` } }],
      metadata: { title: `Change ${n}`, author: 'bench' },
    });
    const res = await svc.post('/submitPullRequest', { ...ref, pr: { number: n } });
    if (res.status !== 200) throw new Error(`submitPullRequest #${n} answered ${res.status}`);
  }
  await svc.post('/updateQueue', { ...ref, state: 'running' });

  const phases: Phase[] = [
    { name: 'pass → merge → next run', state: 'success', samples: [] },
    { name: 'fail → next run', state: 'failure', samples: [] },
  ];
  let n = 1;
  for (const phase of phases) {
    for (let i = 0; i < ITERATIONS; i++, n++) {
      const { runId } = await branchOf(fx, n);
      const sha = await builtSha(svc, runId);
      const started = performance.now();
      const res = await svc.post('/setCommitStatus', { repo: DEFAULT_REPO, sha, context: 'ci/test', state: phase.state });
      if (res.status !== 200) throw new Error(`setCommitStatus answered ${res.status}`);
      await branchOf(fx, n + 1);
      phase.samples.push(performance.now() - started);
    }
  }
  await svc.close();
  return phases;
}

async function main(): Promise<void> {
  const redis = await startRedis();
  process.env.REDIS_URL = redis.url;
  const perRun: Phase[][] = [];
  try {
    for (let r = 0; r < RUNS; r++) {
      perRun.push(await oneRun());
      const line = perRun[r]!.map((p) => `${p.name}: median ${median(p.samples).toFixed(1)} ms`).join('; ');
      console.error(`run ${r + 1}/${RUNS}: ${line}`);
    }
  } finally {
    await redis.stop();
  }

  console.log(`\n${machineSummary()}; ${ITERATIONS} iterations per path, ${RUNS} runs (each a fresh service, redis and repository)\n`);
  console.log('| path | median of run medians (ms) | median of run p90s (ms) | run medians (ms) | run p90s (ms) | min–max over all (ms) |');
  console.log('|---|---|---|---|---|---|');
  for (let i = 0; i < perRun[0]!.length; i++) {
    const phases = perRun.map((run) => run[i]!);
    const medians = phases.map((p) => median(p.samples));
    const p90s = phases.map((p) => percentile(p.samples, 90));
    const all = phases.flatMap((p) => p.samples);
    const f = (x: number) => x.toFixed(1);
    console.log(
      `| ${phases[0]!.name} | ${f(median(medians))} | ${f(median(p90s))} | ${medians.map(f).join(', ')} | ${p90s.map(f).join(', ')} | ${f(Math.min(...all))}–${f(Math.max(...all))} |`,
    );
  }
}

await main();
