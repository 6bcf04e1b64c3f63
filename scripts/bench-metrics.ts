// Benchmark of GET /v1/getMergeQueueMetrics: one organisation with `queues` merge queues and
// `entries` entries of history spread over the last `hours` hours, scraped `scrapes` times
// over real HTTP (org-wide, every queue in one answer).
//
//   npx tsx scripts/bench-metrics.ts [--queues 100] [--entries 10000] [--hours 24] [--scrapes 50]
//
// Starts a private redis-server and the service in-process with the embedded database in memory
// (MONGO_URL set: that MongoDB, in a throw-away database), inserts the history through the
// repositories, then prints the median and p99 scrape latency and the size of the answer.
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { startRedis } from './lib/redis-server.mjs';
import { machineSummary, median, percentile } from './lib/bench-stats.js';
import { startTestService } from './lib/test-service.js';
import { historyOf, makeEntry, type LifeStep } from './lib/entries.js';
import type { Entry, EntryState, HistoryEntry, Queue } from '../shared/merge-queue/domain/model.js';
import { rng } from '../shared/platform/seeded-random.js';

const { values } = parseArgs({
  options: {
    queues: { type: 'string', default: '100' },
    entries: { type: 'string', default: '10000' },
    hours: { type: 'string', default: '24' },
    scrapes: { type: 'string', default: '50' },
  },
});
const QUEUES = Number(values.queues);
const ENTRIES = Number(values.entries);
const HOURS = Number(values.hours);
const SCRAPES = Number(values.scrapes);

// Seeded, so every run scripts the same history.
const random = rng(42);
const minutes = (lo: number, hi: number) => (lo + random() * (hi - lo)) * 60_000;

/**
 * A plausible life: submitted, admitted, tested (sometimes restarted), then merged, failed or
 * cancelled. Steps later than `now` are cut off, which leaves the entry active in that state.
 */
function lifeOf(start: number, now: number): { state: EntryState; history: HistoryEntry[] } {
  const steps: LifeStep[] = [];
  let t = start;
  steps.push([t, 'not_ready', 'api_requested']);
  t += minutes(0, 5);
  steps.push([t, 'pending', 'merge_item_now_ready']);
  t += minutes(0, 20);
  steps.push([t, 'testing', 'test_run_started', randomUUID()]);
  if (random() < 0.15) {
    t += minutes(2, 20);
    steps.push([t, 'pending', 'prerequisite_merge_item_failed']);
    t += minutes(0, 10);
    steps.push([t, 'testing', 'test_run_started', randomUUID()]);
  }
  t += minutes(5, 45);
  const outcome = random();
  if (outcome < 0.8) {
    steps.push([t, 'tests_passed', 'test_run_passed']);
    t += minutes(0, 3);
    steps.push([t, 'merged', 'merge_graph_merge']);
  } else if (outcome < 0.92) {
    steps.push([t, 'pending_failure', 'test_run_failed']);
    t += minutes(0, 10);
    steps.push([t, 'failed', 'test_run_required_status_failed']);
  } else {
    steps.push([t, 'cancelled', 'user_requested']);
  }
  const history = historyOf(steps, now);
  return { state: history[history.length - 1]!.to, history };
}

async function main(): Promise<void> {
  const redis = process.env.REDIS_URL ? null : await startRedis();
  if (redis) process.env.REDIS_URL = redis.url;
  // With MONGO_URL, the service runs on a throw-away database on that server, dropped on close.
  const svc = await startTestService();
  try {
    const now = Date.now();
    const queues: Queue[] = [];
    for (let i = 0; i < QUEUES; i++) {
      const repo = { host: 'github.com', owner: `org${i % 10}`, name: `repo${i}` };
      queues.push(await svc.ctx.mergeQueue.store.queues.create(svc.orgId, repo, 'main', { mode: 'single', concurrency: 4, targetSha: 'f'.repeat(40) }));
    }
    const loadStart = Date.now();
    const entries: Entry[] = [];
    for (let i = 0; i < ENTRIES; i++) {
      const queue = queues[i % QUEUES]!;
      const { state, history } = lifeOf(now - random() * HOURS * 3_600_000, now);
      const last = history[history.length - 1]!;
      entries.push(
        makeEntry({
          queueId: queue.id,
          orgId: svc.orgId,
          prNumber: i + 1,
          seq: i + 1,
          state,
          history,
          stateChangedAt: last.at,
          submittedAt: history[0]!.at,
          lastReason: last.reason,
        }),
      );
    }
    for (let i = 0; i < entries.length; i += 200) await Promise.all(entries.slice(i, i + 200).map((e) => svc.ctx.mergeQueue.store.entries.insert(e)));
    const active = entries.filter((e) => !['merged', 'failed', 'cancelled'].includes(e.state)).length;
    const recent = entries.filter((e) => e.stateChangedAt.getTime() >= now - 3_600_000).length;
    console.log(`loaded ${QUEUES} queues, ${ENTRIES} entries (${active} active, ${recent} changed in the last hour) in ${Date.now() - loadStart} ms`);

    const scrape = async (): Promise<{ ms: number; bytes: number }> => {
      const started = process.hrtime.bigint();
      const res = await fetch(`${svc.url}/v1/getMergeQueueMetrics`, { headers: { 'x-api-token': svc.token } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`scrape answered ${res.status}: ${text.slice(0, 200)}`);
      return { ms: Number(process.hrtime.bigint() - started) / 1e6, bytes: Buffer.byteLength(text) };
    };
    for (let i = 0; i < 3; i++) await scrape(); // warm-up (JIT, first-use allocations)
    const samples: number[] = [];
    let bytes = 0;
    for (let i = 0; i < SCRAPES; i++) {
      const s = await scrape();
      samples.push(s.ms);
      bytes = s.bytes;
    }
    const round = (n: number) => Math.round(n * 10) / 10;
    console.log(`machine: ${machineSummary()}`);
    console.log(`database: ${svc.ctx.db.kind}`);
    console.log(`answer: ${bytes} bytes, ${QUEUES * 2} label sets`);
    console.log(`scrapes: ${SCRAPES}; median ${round(median(samples))} ms, p99 ${round(percentile(samples, 99))} ms, max ${round(Math.max(...samples))} ms`);
  } finally {
    await svc.close();
    if (redis) await redis.stop();
  }
}

await main();
