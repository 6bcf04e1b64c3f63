// Flaky-tests benchmark.
//
//   npx tsx scripts/bench-flaky.ts [--uploads 20] [--upload-tests 1000] [--concurrency 4]
//                                  [--tests 10000] [--runs 1000000] [--days 30] [--samples 30]
//
// A. Ingest throughput: JUnit uploads over HTTP (POST /v1/flaky-tests/upload, multipart), one
//    after another and `concurrency` at a time; test runs stored per second, end to end (parse,
//    store runs and counters, pass-on-retry lookups, re-evaluate every test of the upload).
// B. list-failing-tests latency over HTTP with `tests` tests and `runs` runs spread over `days`
//    days, seeded straight into the store through the ingestion service with a moving clock (the
//    same write path as an upload, minus HTTP). Median and p99 of `samples` calls per query.
//
// Starts a private redis-server and the service in-process with the embedded database in memory
// (the `npm start` code path). Large seeds need a bigger heap: NODE_OPTIONS=--max-old-space-size=8192.
import { rng } from '../shared/seeded-random.js';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startRedis } from './lib/redis-server.mjs';
import { machineSummary, median, percentile } from './lib/bench-stats.js';
import { startTestService, type TestService } from './lib/test-service.js';
import { createFlakyStore } from '../shared/flaky-tests/store/flaky-store.js';
import { createInlineFlakyServices, ingestReport } from './lib/inline-flaky-services.js';
import { DEFAULT_FLAKY_SETTINGS } from '../shared/flaky-tests/services/flaky-settings.js';
import { createLogger } from '../shared/logging.js';

const { values } = parseArgs({
  options: {
    uploads: { type: 'string', default: '20' },
    'upload-tests': { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '4' },
    tests: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '1000000' },
    days: { type: 'string', default: '30' },
    samples: { type: 'string', default: '30' },
    skip: { type: 'string', default: '' },
  },
});
const UPLOADS = Number(values.uploads);
const UPLOAD_TESTS = Number(values['upload-tests']);
const CONCURRENCY = Number(values.concurrency);
const TESTS = Number(values.tests);
const RUNS = Number(values.runs);
const DAYS = Number(values.days);
const SAMPLES = Number(values.samples);
const SKIP = new Set(values.skip.split(',').filter(Boolean));
const SUITE_SIZE = 1000;
const REPO = { host: 'github.com', owner: 'bench', name: 'monorepo' };
const ORG = 'default';
const DAY = 86_400_000;

const sha = (n: number) => n.toString(16).padStart(8, '0').repeat(5);

/**
 * One run of one suite: 2 % of tests flaky (fail 20 % of runs), 0.5 % broken, the rest failing
 * 0.1 % of the time. Failure messages vary in volatile parts like real ones.
 */
function suiteReport(suite: number, tests: number, random: () => number): { xml: string; runs: number } {
  const cases: string[] = [];
  for (let i = 0; i < tests; i++) {
    const n = suite * SUITE_SIZE + i;
    const kind = n % 200 === 0 ? 'broken' : n % 50 === 1 ? 'flaky' : 'stable';
    const p = kind === 'broken' ? 1 : kind === 'flaky' ? 0.2 : 0.001;
    const name = `test_case_${String(n).padStart(6, '0')}`;
    const attrs = `name="${name}" classname="pkg${suite}.module${Math.floor(i / 50)}.Tests" file="src/pkg${suite}/module${Math.floor(i / 50)}/tests.py" time="${(random() * 2).toFixed(3)}"`;
    if (random() < p) {
      const port = 1024 + Math.floor(random() * 60000);
      cases.push(
        `<testcase ${attrs}><failure message="AssertionError: expected status 200 but got 503 from http://10.0.${suite}.4:${port}/api after ${Math.floor(random() * 5000)}ms">Traceback (most recent call last):\n  File "tests.py", line 42\nAssertionError: expected status 200 but got 503</failure></testcase>`,
      );
    } else {
      cases.push(`<testcase ${attrs}/>`);
    }
  }
  return { xml: `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="suite${suite}" tests="${tests}">\n${cases.join('\n')}\n</testsuite></testsuites>\n`, runs: tests };
}

async function httpUpload(svc: TestService, meta: Record<string, unknown>, xml: string): Promise<number> {
  const fd = new FormData();
  fd.append('meta', JSON.stringify({ repo: REPO, org_url_slug: ORG, ...meta }));
  fd.append('junit', new Blob([xml]), 'report.xml');
  const res = await fetch(`${svc.url}/v1/flaky-tests/upload`, { method: 'POST', body: fd, headers: { 'x-api-token': svc.token } });
  const body = (await res.json()) as { runs: number };
  if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${JSON.stringify(body)}`);
  return body.runs;
}

/**
 * A multipart upload whose report is generated chunk by chunk as the request body streams:
 * `tests` testcases, each with `outputBytes` of system-out (what makes real reports large).
 */
async function streamedUpload(svc: TestService, meta: Record<string, unknown>, tests: number, outputBytes: number): Promise<{ runs: number; bytes: number }> {
  const boundary = `----bench${Date.now()}`;
  const encoder = new TextEncoder();
  let bytes = 0;
  const output = 'log line: step completed without errors\n'.repeat(Math.ceil(outputBytes / 40)).slice(0, outputBytes);
  async function* body(): AsyncGenerator<Uint8Array> {
    yield encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="meta"\r\n\r\n${JSON.stringify({ repo: REPO, org_url_slug: ORG, ...meta })}\r\n`);
    yield encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="junit"; filename="big.xml"\r\nContent-Type: application/xml\r\n\r\n`);
    yield encoder.encode('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="big">\n');
    for (let i = 0; i < tests; i += 100) {
      let chunk = '';
      for (let j = i; j < Math.min(tests, i + 100); j++) {
        const failed = j % 50 === 0 ? `<failure message="AssertionError: value ${j} out of range">Traceback (most recent call last)</failure>` : '';
        chunk += `<testcase name="test_big_${j}" classname="pkg.big.Tests" time="0.01">${failed}<system-out>${output}</system-out></testcase>\n`;
      }
      const encoded = encoder.encode(chunk);
      bytes += encoded.length;
      yield encoded;
    }
    yield encoder.encode(`</testsuite></testsuites>\n\r\n--${boundary}--\r\n`);
  }
  const res = await fetch(`${svc.url}/v1/flaky-tests/upload`, {
    method: 'POST',
    body: ReadableStream.from(body()),
    headers: { 'x-api-token': svc.token, 'content-type': `multipart/form-data; boundary=${boundary}` },
    duplex: 'half',
  } as RequestInit);
  const out = (await res.json()) as { runs: number };
  if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${JSON.stringify(out)}`);
  return { runs: out.runs, bytes };
}

/** A full collection, so heap figures measure what is retained. */
function gc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

async function benchIngest(): Promise<string[]> {
  const svc = await startTestService();
  const random = rng(1);
  const reports = Array.from({ length: UPLOADS }, (_, i) => suiteReport(i % 10, UPLOAD_TESTS, random));
  const bytes = reports.reduce((n, r) => n + r.xml.length, 0) / reports.length;
  const lines: string[] = [];
  try {
    // Warm-up: JIT, index creation, first repository.
    await httpUpload(svc, { commit_sha: sha(999_999), branch: 'main' }, suiteReport(0, 100, random).xml);
    // Rounds alternate between the modes, so neither profits from a warmer (or a fuller) process.
    const modes = [
      { label: 'sequential', parallel: 1, rates: [] as number[] },
      { label: `${CONCURRENCY} concurrent`, parallel: CONCURRENCY, rates: [] as number[] },
    ];
    for (let round = 0; round < 3; round++) {
      for (const mode of modes) {
        let next = 0;
        let stored = 0;
        const started = performance.now();
        await Promise.all(
          Array.from({ length: mode.parallel }, async () => {
            for (let i = next++; i < reports.length; i = next++) {
              const onPr = i % 3 === 0;
              const runs = await httpUpload(
                svc,
                { commit_sha: sha(round * 100_000 + mode.parallel * 10_000 + i), branch: onPr ? `feature/f${i}` : 'main', pr_number: onPr ? 100 + i : null },
                reports[i]!.xml,
              );
              // Not `stored += await …`: that reads `stored` before the await and loses concurrent additions.
              stored += runs;
            }
          }),
        );
        mode.rates.push(stored / ((performance.now() - started) / 1000));
      }
    }
    for (const m of modes) {
      lines.push(`| ${m.label} | ${UPLOADS} × ${UPLOAD_TESTS} runs (${Math.round(bytes / 1024)} KiB each) | ${Math.round(median(m.rates))} | ${m.rates.map((r) => Math.round(r)).join(' · ')} |`);
    }
    // Large reports, generated while they are sent (the client holds none of it). What the
    // server keeps afterwards (heap after a full GC) is the stored data, not the report.
    for (const [tests, outputBytes] of [
      [100_000, 0],
      [20_000, 5_000],
    ] as const) {
      gc();
      const before = process.memoryUsage().heapUsed;
      const started = performance.now();
      const { runs, bytes } = await streamedUpload(svc, { commit_sha: sha(700_000 + tests), branch: 'main' }, tests, outputBytes);
      const seconds = (performance.now() - started) / 1000;
      gc();
      const retained = process.memoryUsage().heapUsed - before;
      lines.push(
        `| one streamed report${outputBytes ? `, ${outputBytes / 1000} KB output per test` : ''} | 1 × ${runs.toLocaleString('en')} runs (${(bytes / 2 ** 20).toFixed(0)} MiB) | ${Math.round(runs / seconds)} | ${(bytes / 2 ** 20 / seconds).toFixed(1)} MiB/s; heap after GC +${Math.round(retained / 2 ** 20)} MiB (the stored runs, tests and counters) |`,
      );
    }
  } finally {
    await svc.close();
  }
  return lines;
}

async function benchList(): Promise<string[]> {
  const svc = await startTestService();
  const lines: string[] = [];
  try {
    const db = svc.ctx.db;
    const store = createFlakyStore(db);
    const now = Date.now();
    let clock = now - DAYS * DAY;
    const seeder = createInlineFlakyServices({ store, orgs: svc.ctx.store.orgs, settings: { ...DEFAULT_FLAKY_SETTINGS }, logger: createLogger('silent'), now: () => new Date(clock) });
    const suites = Math.max(1, Math.ceil(TESTS / SUITE_SIZE));
    const uploads = Math.ceil(RUNS / Math.min(SUITE_SIZE, TESTS));
    const random = rng(2);
    const seedStart = performance.now();
    let seeded = 0;
    for (let u = 0; u < uploads; u++) {
      // Uploads spread evenly over the period, ending now; a third on PR branches.
      clock = now - DAYS * DAY + Math.floor(((u + 1) / uploads) * DAYS * DAY) - 60_000;
      const suite = u % suites;
      const onPr = u % 3 === 0;
      const report = suiteReport(suite, Math.min(SUITE_SIZE, TESTS), random);
      const result = await ingestReport(seeder, svc.orgId, {
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
      }, 'report.xml', report.xml);
      seeded += result.counts.runs;
      if (u % 100 === 99) process.stderr.write(`seeded ${seeded} runs in ${Math.round((performance.now() - seedStart) / 1000)} s, heap ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MiB\n`);
    }
    const seedSeconds = (performance.now() - seedStart) / 1000;
    lines.push(`Seeded ${seeded.toLocaleString('en')} runs of ${TESTS.toLocaleString('en')} tests over ${DAYS} days in ${Math.round(seedSeconds)} s (${Math.round(seeded / seedSeconds)} runs/s through the ingestion service without HTTP); heap ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MiB.`);
    lines.push('');
    lines.push('| query | median (ms) | p99 (ms) | rows |');
    lines.push('|---|---|---|---|');

    const end = new Date(now + 60_000);
    const start = new Date(end.getTime() - 7 * DAY);
    const post = async (path: string, body: Record<string, unknown>) => {
      const t = performance.now();
      const res = await svc.post<{ page: { total_rows: number; next_page_token: string } }>(path, body);
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return { ms: performance.now() - t, body: res.body };
    };
    const failingBody = (token = '') => ({ repo: REPO, org_url_slug: ORG, start_time: start.toISOString(), end_time: end.toISOString(), page_query: { page_size: 100, page_token: token } });
    // The first read brings statuses that time changed up to date (see docs/flaky-tests.md).
    const first = await post('/flaky-tests/list-failing-tests', failingBody());
    lines.push(`| list-failing-tests, 7-day window, first call after seeding (time-driven re-evaluations) | ${Math.round(first.ms)} | – | ${first.body.page.total_rows} |`);
    const second = await post('/flaky-tests/list-failing-tests', failingBody());
    const queries: { name: string; run: () => Promise<{ ms: number; rows: number }> }[] = [
      {
        name: 'list-failing-tests, 7-day window, first page of 100',
        run: async () => {
          const r = await post('/flaky-tests/list-failing-tests', failingBody());
          return { ms: r.ms, rows: r.body.page.total_rows };
        },
      },
      {
        name: 'list-failing-tests, 7-day window, second page of 100',
        run: async () => {
          const r = await post('/flaky-tests/list-failing-tests', failingBody(second.body.page.next_page_token));
          return { ms: r.ms, rows: r.body.page.total_rows };
        },
      },
      {
        name: 'list-failing-tests, 1-day window, first page of 100',
        run: async () => {
          const r = await post('/flaky-tests/list-failing-tests', { ...failingBody(), start_time: new Date(end.getTime() - DAY).toISOString() });
          return { ms: r.ms, rows: r.body.page.total_rows };
        },
      },
      {
        name: 'list-unhealthy-tests FLAKY, first page of 100',
        run: async () => {
          const r = await post('/flaky-tests/list-unhealthy-tests', { repo: REPO, org_url_slug: ORG, status: 'FLAKY', page_query: { page_size: 100 } });
          return { ms: r.ms, rows: r.body.page.total_rows };
        },
      },
    ];
    for (const q of queries) {
      const samples: { ms: number; rows: number }[] = [];
      for (let i = 0; i < SAMPLES; i++) samples.push(await q.run());
      const ms = samples.map((s) => s.ms);
      lines.push(`| ${q.name} | ${median(ms).toFixed(1)} | ${percentile(ms, 99).toFixed(1)} | ${samples[0]!.rows} |`);
    }
  } finally {
    await svc.close();
  }
  return lines;
}

async function main(): Promise<void> {
  const redis = await startRedis();
  process.env.REDIS_URL = redis.url;
  try {
    const out: string[] = [machineSummary(), ''];
    if (!SKIP.has('ingest')) {
      out.push('A. Ingest over HTTP (POST /v1/flaky-tests/upload)', '', '| mode | uploads | runs/s (median of 3) | runs/s per round |', '|---|---|---|---|');
      out.push(...(await benchIngest()), '');
    }
    if (!SKIP.has('list')) {
      out.push('B. Queries over HTTP', '');
      out.push(...(await benchList()));
    }
    console.log(`\n${out.join('\n')}`);
  } finally {
    await redis.stop();
  }
}

await main();
