// How long the merge queue's read endpoints hold the API process on a long history: one queue with
// `--prs` pull requests over the last `--days` days (one run each, 10 % failed, the rest merged),
// then each read a dashboard or a read-only token can ask for, at its widest window, `--calls`
// times. Per endpoint: the median answer time and the longest gap between two ticks of a 2 ms
// timer during the calls — the time every other request of the process waited.
//
//   npx tsx scripts/bench-read-stalls.ts [--prs 30000] [--days 90] [--calls 5]
//
// Starts a private redis-server and the service in-process on the embedded database in memory
// (as `npm start` runs it); only loopback is contacted.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { startRedis } from './lib/redis-server.mjs';
import { machineSummary, median } from './lib/bench-stats.js';
import { startTestService } from './lib/test-service.js';
import { historyOf, makeEntry, type LifeStep } from './lib/entries.js';
import { rng } from '../shared/platform/seeded-random.js';
import type { Entry, TestRun } from '../shared/merge-queue/domain/model.js';

const { values } = parseArgs({
  options: {
    prs: { type: 'string', default: '30000' },
    days: { type: 'string', default: '90' },
    calls: { type: 'string', default: '5' },
  },
});
const PRS = Number(values.prs);
const DAYS = Number(values.days);
const CALLS = Number(values.calls);
const DAY = 86_400_000;
const MINUTE = 60_000;

/** A pull request's life starting at `start`: admitted, tested once (20 minutes), then merged or failed. */
function lifeOf(orgId: string, queueId: string, n: number, start: number, fails: boolean): { entry: Entry; run: TestRun } {
  const id = randomUUID();
  const runId = randomUUID();
  const steps: LifeStep[] = [
    [start, 'pending', 'api_requested'],
    [start + MINUTE, 'testing', 'test_run_started', runId],
    [start + 21 * MINUTE, fails ? 'failed' : 'tests_passed', fails ? 'test_run_failed' : 'test_run_passed', runId],
  ];
  if (!fails) steps.push([start + 22 * MINUTE, 'merged', 'merge_graph_merge']);
  const history = historyOf(steps);
  const last = history.at(-1)!;
  const entry = makeEntry({
    id,
    queueId,
    orgId,
    prNumber: n,
    seq: n,
    state: last.to,
    history,
    stateChangedAt: last.at,
    submittedAt: new Date(start),
    lastReason: last.reason,
  });
  const run: TestRun = {
    id: runId,
    orgId,
    queueId,
    kind: 'main',
    entryIds: [id],
    baseEntryIds: [],
    targetSha: 'f'.repeat(40),
    branch: `trunk-merge/pr-${n}/${runId}`,
    sha: 'a'.repeat(40),
    status: fails ? 'failed' : 'succeeded',
    requiredStatuses: ['ci/test'],
    requiredStatusesSource: 'merge_instance',
    deadlineAt: null,
    createdAt: new Date(start + MINUTE),
    concludedAt: new Date(start + 21 * MINUTE),
    conclusionReason: fails ? 'test_run_failed' : 'test_run_passed',
    branchDeleted: true,
    version: 1,
  };
  return { entry, run };
}

const redis = await startRedis();
process.env.REDIS_URL = redis.url;
const svc = await startTestService();
try {
  const repo = { host: 'github.com', owner: 'acme', name: 'monorepo' };
  const { store } = svc.ctx.mergeQueue;
  const queue = await store.queues.create(svc.orgId, repo, 'main', { mode: 'single', concurrency: 4, targetSha: 'f'.repeat(40) });
  const now = Date.now();
  const random = rng(PRS);
  const lives = Array.from({ length: PRS }, (_, i) => lifeOf(svc.orgId, queue.id, i + 1, now - DAYS * DAY + (i / PRS) * (DAYS * DAY - DAY), random() < 0.1));
  for (let i = 0; i < lives.length; i += 500) {
    const slice = lives.slice(i, i + 500);
    await Promise.all(slice.map((l) => store.entries.insert(l.entry)));
    await Promise.all(slice.map((l) => store.testRuns.insert(l.run)));
  }

  const post = async (operation: string, body: unknown): Promise<void> => {
    const res = await fetch(`${svc.url}/v1/${operation}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'x-api-token': svc.token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${operation} answered ${res.status}: ${text.slice(0, 200)}`);
  };
  /** Answer times and the longest timer gap over `CALLS` calls, after one warm-up call. */
  const measure = async (operation: string, body?: unknown): Promise<{ ms: number[]; gap: number }> => {
    await post(operation, body);
    const ms: number[] = [];
    let last = performance.now();
    let gap = 0;
    const timer = setInterval(() => {
      const t = performance.now();
      gap = Math.max(gap, t - last);
      last = t;
    }, 2);
    for (let i = 0; i < CALLS; i++) {
      const started = performance.now();
      await post(operation, body);
      ms.push(performance.now() - started);
    }
    clearInterval(timer);
    return { ms, gap };
  };

  const ref = { repo, targetBranch: 'main' };
  const reads: [string, string, unknown][] = [
    ['getQueueHealth', `${DAYS} days, 200 buckets`, { ...ref, windowHours: DAYS * 24, buckets: 200 }],
    ['getQueueCostReport', `${DAYS} days`, { ...ref, since: new Date(now - DAYS * DAY).toISOString(), until: new Date(now).toISOString() }],
    ['getMergeQueueMetrics', 'the last hour', undefined],
    ['listQueues', 'merges of 24 hours', {}],
    ['listTestRuns', '20 most recent', ref],
    ['listPullRequests', 'first page', ref],
    ['getQueue', '', ref],
  ];
  console.log(`Measured with \`npx tsx scripts/bench-read-stalls.ts --prs ${PRS} --days ${DAYS} --calls ${CALLS}\` on ${machineSummary()}.\n`);
  console.log('| read | window | median answer (ms) | longest event-loop gap (ms) |');
  console.log('|---|---|---|---|');
  for (const [operation, window, body] of reads) {
    const { ms, gap } = await measure(operation, body);
    console.log(`| ${operation} | ${window} | ${Math.round(median(ms))} | ${Math.round(gap)} |`);
  }
} finally {
  await svc.close();
  await redis.stop();
}
