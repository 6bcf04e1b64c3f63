// Flaky-tests benchmark: ingest throughput, the embedded store's memory and query latency, each
// at several sizes (runs).
//
//   npx tsx scripts/bench-flaky.ts [--store disk|memory] [--sizes 10000,100000,1000000] [--rounds 3]
//                                  [--upload-tests 1000] [--concurrency 20] [--tests 10000]
//                                  [--days 30] [--samples 30] [--only report,concurrent,stored]
//
// --store disk (the default) is the embedded database persisted in a data directory — what
// `npm start` runs; --store memory keeps it in memory (what the tests use). Workers run in the
// process, as with `npm start`.
//
// report:     one JUnit report of N runs uploaded over HTTP (POST /v1/flaky-tests/upload), end to
//             end until the answer: parse, store runs and counters, pass-on-retry lookups, evaluate
//             every test. Beside it, in the same round, the parser alone reads the same bytes: the
//             ceiling.
// concurrent: N / upload-tests reports of upload-tests tests, `concurrency` uploads at a time.
// Uploads answered 202 (still processing after FLAKY_UPLOAD_WAIT_SECONDS) are followed through
// upload-status, as a CI client would, and count until their result.
// stored:     a fresh service seeded with N runs of `tests` tests over `days` days through the
//             ingestion service (a moving clock, no HTTP), then resident memory after a full GC
//             and again once the idle heap has settled (beside the same process before seeding:
//             run one size per process for memory figures), and list-failing-tests /
//             list-unhealthy-tests latency over HTTP (median and p99 of `samples` calls).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { rng } from '../shared/platform/seeded-random.js';
import { startRedis } from './lib/redis-server.mjs';
import { machineSummary, median, percentile } from './lib/bench-stats.js';
import { startTestService, type TestService } from './lib/test-service.js';
import { openEmbeddedDatabase } from '../shared/platform/database/embedded/embedded-database.js';
import { createFlakyStore } from '../shared/flaky-tests/store/flaky-store.js';
import { bigReport, httpUpload, parserRate, testcase } from './lib/junit-bench-reports.js';
import { createInlineFlakyServices, ingestReport } from './lib/inline-flaky-services.js';
import { DEFAULT_FLAKY_SETTINGS } from '../shared/flaky-tests/services/flaky-settings.js';
import { createLogger } from '../shared/platform/logging.js';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'disk' },
    sizes: { type: 'string', default: '10000,100000,1000000' },
    rounds: { type: 'string', default: '3' },
    'upload-tests': { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '20' },
    tests: { type: 'string', default: '10000' },
    days: { type: 'string', default: '30' },
    samples: { type: 'string', default: '30' },
    only: { type: 'string', default: 'report,concurrent,stored' },
  },
});
if (values.store !== 'disk' && values.store !== 'memory') throw new Error('--store is disk or memory');
const STORE = values.store;
const SIZES = values.sizes.split(',').map(Number);
const ROUNDS = Number(values.rounds);
const UPLOAD_TESTS = Number(values['upload-tests']);
const CONCURRENCY = Number(values.concurrency);
const TESTS = Number(values.tests);
const DAYS = Number(values.days);
const SAMPLES = Number(values.samples);
const ONLY = new Set(values.only.split(',').filter(Boolean));
const SUITE_SIZE = 1000;
const REPO = { host: 'github.com', owner: 'bench', name: 'monorepo' };
const ORG = 'default';
const DAY = 86_400_000;
const MiB = 2 ** 20;

const TARGET = { repo: REPO, org_url_slug: ORG };
const sha = (n: number) => n.toString(16).padStart(8, '0').repeat(5);

/** One run of one suite of tests (numbered from suite × 1,000). */
function suiteReport(suite: number, tests: number, random: () => number): string {
  const cases: string[] = [];
  for (let i = 0; i < tests; i++) cases.push(testcase(suite * SUITE_SIZE + i, `pkg${suite}`, random));
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="suite${suite}" tests="${tests}">\n${cases.join('\n')}\n</testsuite></testsuites>\n`;
}

/**
 * A service on the chosen store, with its workers as `npm start` runs it, or without them for the
 * stored part: its seeder ingests in-process with a clock in the past, and the workers' sweep
 * for uploads waiting too long would otherwise take them over.
 */
async function startService(workers = true): Promise<{ svc: TestService; close: () => Promise<void> }> {
  const dir = STORE === 'disk' ? mkdtempSync(path.join(tmpdir(), 'openmq-bench-db-')) : null;
  const database = dir === null ? undefined : await openEmbeddedDatabase({ dataDir: dir });
  const svc = await startTestService({ startWorkers: workers, ...(database ? { database } : {}) });
  return {
    svc,
    close: async () => {
      await svc.close();
      if (dir !== null) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A full collection, so heap figures measure what is retained. */
function gc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

async function benchReport(): Promise<string[]> {
  const lines = [
    `| runs in the report | XML | parser alone, runs/s (median) | end to end, runs/s (median) | of the parser | end to end per round |`,
    '|---|---|---|---|---|---|',
  ];
  for (const size of SIZES) {
    const { svc, close } = await startService();
    try {
      const report = bigReport(size, rng(size));
      const bytes = report.reduce((n, c) => n + c.length, 0);
      // Warm-up: JIT, the repository, the tests' first creation (later rounds update known tests).
      await httpUpload(svc, TARGET, { commit_sha: sha(999_999), branch: 'main' }, bigReport(Math.min(size, 1000), rng(1)));
      const parser: number[] = [];
      const e2e: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        parser.push(await parserRate(report));
        const started = performance.now();
        const runs = await httpUpload(svc, TARGET, { commit_sha: sha(size + round), branch: 'main' }, report);
        e2e.push(runs / ((performance.now() - started) / 1000));
      }
      lines.push(
        `| ${size.toLocaleString('en')} | ${(bytes / MiB).toFixed(1)} MiB | ${Math.round(median(parser)).toLocaleString('en')} | ${Math.round(median(e2e)).toLocaleString('en')} | ${((median(e2e) / median(parser)) * 100).toFixed(1)} % | ${e2e.map((r) => Math.round(r).toLocaleString('en')).join(' · ')} |`,
      );
      process.stderr.write(`${lines.at(-1)}\n`);
    } finally {
      await close();
    }
  }
  return lines;
}

async function benchConcurrent(): Promise<string[]> {
  const lines = [
    `| runs | uploads (${UPLOAD_TESTS.toLocaleString('en')} tests each, ${CONCURRENCY} at a time) | runs/s (median) | runs/s per round |`,
    '|---|---|---|---|',
  ];
  const random = rng(3);
  const suites = Array.from({ length: 10 }, (_, s) => suiteReport(s, UPLOAD_TESTS, random)).map((xml) => [Buffer.from(xml)]);
  for (const size of SIZES) {
    const { svc, close } = await startService();
    try {
      await httpUpload(svc, TARGET, { commit_sha: sha(999_999), branch: 'main' }, suites[0]!);
      const uploads = Math.max(1, Math.round(size / UPLOAD_TESTS));
      const rates: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        let next = 0;
        let stored = 0;
        const started = performance.now();
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            for (let i = next++; i < uploads; i = next++) {
              const onPr = i % 3 === 0;
              const runs = await httpUpload(
                svc,
                TARGET,
                { commit_sha: sha(round * 1_000_000 + i), branch: onPr ? `feature/f${i % 97}` : 'main', pr_number: onPr ? 100 + (i % 97) : null },
                suites[i % suites.length]!,
              );
              // Not `stored += await …`: that reads `stored` before the await and loses concurrent additions.
              stored += runs;
            }
          }),
        );
        rates.push(stored / ((performance.now() - started) / 1000));
      }
      lines.push(
        `| ${size.toLocaleString('en')} | ${uploads.toLocaleString('en')} | ${Math.round(median(rates)).toLocaleString('en')} | ${rates.map((r) => Math.round(r).toLocaleString('en')).join(' · ')} |`,
      );
      process.stderr.write(`${lines.at(-1)}\n`);
    } finally {
      await close();
    }
  }
  return lines;
}

async function benchStored(): Promise<string[]> {
  const lines = [
    '| runs stored | seeding, runs/s | RSS before → right after seeding → settled (MiB) | heap used / external (MiB) | list-failing-tests 7 days, first page: median / p99 (ms) | second page | 1-day window | list-unhealthy-tests FLAKY | rows (7 days · 1 day · flaky) |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const size of SIZES) {
    const { svc, close } = await startService(false);
    try {
      gc();
      const rssBefore = process.memoryUsage().rss;
      const store = createFlakyStore(svc.ctx.db);
      const now = Date.now();
      let clock = now - DAYS * DAY;
      const seeder = createInlineFlakyServices({
        store,
        orgs: svc.ctx.accounts.store.orgs,
        audit: svc.ctx.accounts.store.audit,
        settings: { ...DEFAULT_FLAKY_SETTINGS },
        logger: createLogger('silent'),
        now: () => new Date(clock),
      });
      const perUpload = Math.min(SUITE_SIZE, TESTS);
      const suites = Math.max(1, Math.ceil(TESTS / SUITE_SIZE));
      const uploads = Math.ceil(size / perUpload);
      const random = rng(2);
      const seedStart = performance.now();
      let seeded = 0;
      for (let u = 0; u < uploads; u++) {
        // Uploads spread evenly over the period, ending now; a third on PR branches.
        clock = now - DAYS * DAY + Math.floor(((u + 1) / uploads) * DAYS * DAY) - 60_000;
        const onPr = u % 3 === 0;
        const meta = {
          repo: REPO,
          orgUrlSlug: ORG,
          sha: sha(u),
          branch: onPr ? `feature/branch-${u % 97}` : 'main',
          prNumber: onPr ? 1000 + (u % 97) : null,
          variant: '',
          jobName: null,
          jobUrl: null,
          ciAttempt: null,
          startedAt: null,
        };
        seeded += (await ingestReport(seeder, svc.orgId, meta, 'report.xml', suiteReport(u % suites, perUpload, random))).counts.runs;
        if (u % 100 === 99)
          process.stderr.write(
            `seeded ${seeded} runs in ${Math.round((performance.now() - seedStart) / 1000)} s, rss ${Math.round(process.memoryUsage().rss / MiB)} MiB\n`,
          );
      }
      const seedRate = seeded / ((performance.now() - seedStart) / 1000);
      gc();
      const rssAfter = process.memoryUsage().rss;
      // V8 gives the pages seeding used back to the system over the next idle seconds: resident
      // memory is measured again once the heap stops shrinking, as an idle service would settle.
      let heapTotal = process.memoryUsage().heapTotal;
      for (let i = 0; i < 15; i++) {
        await new Promise((resolve) => setTimeout(resolve, 2000));
        gc();
        const next = process.memoryUsage().heapTotal;
        if (heapTotal - next < MiB) break;
        heapTotal = next;
      }
      const { rss, heapUsed, external } = process.memoryUsage();

      const end = new Date(now + 60_000);
      const start = new Date(end.getTime() - 7 * DAY);
      const post = async (p: string, body: Record<string, unknown>) => {
        const t = performance.now();
        const res = await svc.post<{ page: { total_rows: number; next_page_token: string } }>(p, body);
        if (res.status !== 200) throw new Error(`${p}: ${res.status} ${JSON.stringify(res.body)}`);
        return { ms: performance.now() - t, rows: res.body.page.total_rows, next: res.body.page.next_page_token };
      };
      const failing = (token = '', from = start) => ({
        repo: REPO,
        org_url_slug: ORG,
        start_time: from.toISOString(),
        end_time: end.toISOString(),
        page_query: { page_size: 100, page_token: token },
      });
      // The first read brings statuses that time changed up to date (see docs/flaky-tests.md); not timed.
      const first = await post('/flaky-tests/list-failing-tests', failing());
      const queries = [
        () => post('/flaky-tests/list-failing-tests', failing()),
        () => post('/flaky-tests/list-failing-tests', failing(first.next)),
        () => post('/flaky-tests/list-failing-tests', failing('', new Date(end.getTime() - DAY))),
        () => post('/flaky-tests/list-unhealthy-tests', { repo: REPO, org_url_slug: ORG, status: 'FLAKY', page_query: { page_size: 100 } }),
      ];
      const cells: string[] = [];
      const rows: number[] = [];
      for (const [i, q] of queries.entries()) {
        const ms: number[] = [];
        let r = 0;
        for (let k = 0; k < SAMPLES; k++) {
          const out = await q();
          ms.push(out.ms);
          r = out.rows;
        }
        cells.push(`${median(ms).toFixed(1)} / ${percentile(ms, 99).toFixed(1)}`);
        if (i !== 1) rows.push(r);
      }
      lines.push(
        `| ${seeded.toLocaleString('en')} | ${Math.round(seedRate).toLocaleString('en')} | ${Math.round(rssBefore / MiB)} → ${Math.round(rssAfter / MiB)} → ${Math.round(rss / MiB)} | ${Math.round(heapUsed / MiB)} / ${Math.round(external / MiB)} | ${cells.join(' | ')} | ${rows.join(' · ')} |`,
      );
      process.stderr.write(`${lines.at(-1)}\n`);
    } finally {
      await close();
    }
  }
  return lines;
}

async function main(): Promise<void> {
  const redis = await startRedis();
  process.env.REDIS_URL = redis.url;
  try {
    const out: string[] = [machineSummary(), `store: ${STORE === 'disk' ? 'embedded, persisted in a data directory (npm start)' : 'embedded, in memory'}`, ''];
    if (ONLY.has('report')) out.push('One report over HTTP, parser alone beside it', '', ...(await benchReport()), '');
    if (ONLY.has('concurrent')) out.push('Concurrent uploads over HTTP', '', ...(await benchConcurrent()), '');
    if (ONLY.has('stored')) out.push(`${TESTS.toLocaleString('en')} tests over ${DAYS} days: memory and queries`, '', ...(await benchStored()), '');
    console.log(`\n${out.join('\n')}`);
  } finally {
    await redis.stop();
  }
}

await main();
