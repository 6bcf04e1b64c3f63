// Benchmark of one planning pass as the worker runs it (issue 16): EngineService.planQueue — the
// queue and its recovery checks, the snapshot loaded from the store (entries, runs, the target
// head and required statuses from git), the planner, and the applier — on queues of several
// sizes, beside the pure planner on the same snapshot (the ceiling: no database, no git).
//
//   npx tsx scripts/bench-planning-pass.ts [--sizes 100,1000,10000] [--passes 50] [--concurrency 10]
//
// Per size: a bare repository with that many pull requests (one `git fast-import`), the service
// in-process without workers (embedded database in memory; no planning job runs on its own), a
// queue with a required status nobody reports, and that many `pending` entries written straight
// to the store. Passes run until one changes nothing (the first builds `concurrency` test
// branches), then `passes` more are timed: each finds the runs waiting for CI and decides
// nothing, the steady state of a long queue, which every status, submission and poll triggers.
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startRedis } from './lib/redis-server.mjs';
import { startTestService } from './lib/test-service.js';
import { DEFAULT_REPO, makeGitRoot, removeGitRoot } from './lib/git-fixtures.js';
import { createBenchRepo } from './lib/bench-repo.js';
import { makeEntry } from './lib/entries.js';
import { machineSummary, median, percentile } from './lib/bench-stats.js';
import { gitText } from '../shared/providers/local/git-runner.js';
import { plan } from '../shared/merge-queue/domain/planner/index.js';
import { loadSnapshot } from '../shared/merge-queue/services/engine/plan-snapshot.js';
import { ScheduleSource } from '../shared/merge-queue/services/schedule-source.js';
import { ChangedPathsSource } from '../shared/merge-queue/services/changed-paths-source.js';
import { PathLanesSource } from '../shared/merge-queue/services/path-lanes-source.js';
import { createLogger } from '../shared/platform/logging.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100,1000,10000' },
    passes: { type: 'string', default: '50' },
    concurrency: { type: 'string', default: '10' },
  },
});
const SIZES = values.sizes.split(',').map(Number);
const PASSES = Number(values.passes);
const CONCURRENCY = Number(values.concurrency);
const ref = { repo: DEFAULT_REPO, targetBranch: 'main' };

interface SizeResult {
  size: number;
  pass: number[];
  load: number[];
  planOnly: number[];
}

async function benchSize(size: number): Promise<SizeResult> {
  const gitRoot = await makeGitRoot();
  const dir = await createBenchRepo(gitRoot, DEFAULT_REPO, size);
  const svc = await startTestService({ gitRoot });
  try {
    await svc.post('/createQueue', ref);
    await svc.post('/updateQueue', { ...ref, concurrency: CONCURRENCY, requiredStatuses: ['ci/test'] });
    const queue = await svc.ctx.mergeQueue.store.queues.find(svc.orgId, DEFAULT_REPO, 'main');
    if (!queue) throw new Error('queue not created');
    const heads = new Map(
      (await gitText(['for-each-ref', '--format=%(refname) %(objectname)', 'refs/pull/'], { gitDir: dir }))
        .trim()
        .split('\n')
        .map((line) => {
          const [name = '', sha = ''] = line.split(' ');
          return [Number(/^refs\/pull\/(\d+)\/head$/.exec(name)?.[1]), sha] as const;
        }),
    );
    for (let i = 1; i <= size; i++) {
      await svc.ctx.mergeQueue.store.entries.insert(
        makeEntry({ queueId: queue.id, orgId: svc.orgId, prNumber: i, seq: i, state: 'pending', prSha: heads.get(i) ?? '', prTitle: `Change ${i}` }),
      );
    }
    const engine = svc.ctx.mergeQueue.services.engine;
    for (let i = 0; i < 10; i++) if ((await engine.planQueue(queue.id)).applied === 0) break;
    const result: SizeResult = { size, pass: [], load: [], planOnly: [] };
    const sources = {
      testResults: svc.ctx.flakyTests.services.runResults,
      schedules: new ScheduleSource(),
      changedPaths: new ChangedPathsSource(createLogger('silent')),
      lanes: new PathLanesSource(),
    };
    const provider = await svc.ctx.providers.providerFor(queue.repo);
    if (!provider) throw new Error('no provider');
    for (let i = 0; i < PASSES; i++) {
      const t0 = performance.now();
      const summary = await engine.planQueue(queue.id);
      result.pass.push(performance.now() - t0);
      if (summary.applied !== 0) throw new Error(`a timed pass applied ${summary.applied} actions: the queue was not settled`);
      const current = await svc.ctx.mergeQueue.store.queues.findById(queue.id);
      if (!current) throw new Error('queue gone');
      const t1 = performance.now();
      const snapshot = await loadSnapshot(svc.ctx.mergeQueue.store, current, provider, sources, new Date());
      const t2 = performance.now();
      plan(snapshot.input);
      result.load.push(t2 - t1);
      result.planOnly.push(performance.now() - t2);
    }
    return result;
  } finally {
    await svc.close();
    await removeGitRoot(gitRoot);
  }
}

const ms = (xs: number[]) => median(xs).toFixed(1);
const p99 = (xs: number[]) => percentile(xs, 99).toFixed(1);

async function main(): Promise<void> {
  const redis = await startRedis();
  process.env.REDIS_URL = redis.url;
  console.log(`machine: ${machineSummary()}; ${PASSES} timed passes per size; concurrency ${CONCURRENCY}; embedded database in memory`);
  console.log('| entries | planning pass: median ms (p99) | of which snapshot load (median) | planner alone (median) |');
  console.log('|---|---|---|---|');
  try {
    for (const size of SIZES) {
      const r = await benchSize(size);
      console.log(`| ${size.toLocaleString('en')} | ${ms(r.pass)} (${p99(r.pass)}) | ${ms(r.load)} | ${ms(r.planOnly)} |`);
    }
  } finally {
    await redis.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
