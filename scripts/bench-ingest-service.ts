// What a user of `npm start` sees while large test reports arrive: the all-in-one process (API and
// workers, the embedded store persisted in a data directory, its own Redis) started as a separate
// process, then `--reports` reports of `--runs` runs uploaded one after another over HTTP — the
// first creates the tests, the others report them again under new commits, as CI does. While each
// upload runs, this process asks GET /healthz in a loop and records how long each answer took.
//
//   npx tsx scripts/bench-ingest-service.ts [--runs 100000] [--reports 10] [--rounds 3] [--profile <dir>]
//                                           [--node-args="--max-old-space-size=640"]
//
// --node-args passes Node's own flags to the service process (a heap limit, --trace-gc), as
// NODE_OPTIONS or a container's command line would.
// --profile writes a CPU profile of the service process per round into <dir> (node --cpu-prof),
// to find what holds its event loop.
// Per round (a fresh process and data directory): each report's end-to-end rate (upload to
// answer, runs/s) beside the parser alone reading the same bytes in this process; the longest and
// the 99th-percentile /healthz answer during the uploads, beside the same while idle; and the
// all-in-one process's peak resident memory (VmHWM, its high-water mark) over all the reports.
// Only loopback is contacted.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { rng } from '../shared/platform/seeded-random.js';
import { startRedis } from './lib/redis-server.mjs';
import { machineSummary, median, percentile } from './lib/bench-stats.js';
import { printedUrl, startServiceProcess } from './lib/service-process.js';
import { bigReport, httpUpload, parserRate } from './lib/junit-bench-reports.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '100000' },
    reports: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    profile: { type: 'string' },
    'node-args': { type: 'string', default: '' },
  },
});
const RUNS = Number(values.runs);
const REPORTS = Number(values.reports);
const ROUNDS = Number(values.rounds);
const TOKEN = 'bench-ingest-service-token-0001';
const TARGET = { repo: { host: 'github.com', owner: 'bench', name: 'monorepo' }, org_url_slug: 'default' };
const MiB = 2 ** 20;
const sha = (n: number) => n.toString(16).padStart(8, '0').repeat(5);

/** Asks /healthz one request after another until stopped; answers each request's milliseconds. */
function probeHealth(url: string): { stop: () => Promise<number[]> } {
  const times: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${url}/healthz`);
      await res.arrayBuffer();
      times.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return times;
    },
  };
}

/** The process's resident high-water mark, in MiB (Linux: /proc/<pid>/status VmHWM). */
function peakRssMiB(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (!kb) throw new Error(`no VmHWM for process ${pid}`);
  return Number(kb) / 1024;
}

interface Round {
  rates: number[];
  parser: number[];
  idle: number[];
  busy: number[];
  peakMiB: number;
}

async function round(report: readonly Buffer[]): Promise<Round> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'openmq-bench-ingest-'));
  const redis = await startRedis({ dataDir: path.join(dataDir, 'redis') });
  const profile = values.profile ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(values.profile)] : [];
  const nodeArgs = [...profile, ...values['node-args'].split(' ').filter(Boolean)];
  const service = startServiceProcess({ entry: 'all-in-one', nodeArgs, dataDir, token: TOKEN, env: { REDIS_URL: redis.url } });
  try {
    const base = await printedUrl(service);
    const target = { url: base, token: TOKEN };
    const idleProbe = probeHealth(base);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const idle = await idleProbe.stop();
    const out: Round = { rates: [], parser: [], idle, busy: [], peakMiB: 0 };
    for (let i = 0; i < REPORTS; i++) {
      out.parser.push(await parserRate(report));
      const probe = probeHealth(base);
      const started = performance.now();
      const runs = await httpUpload(target, TARGET, { commit_sha: sha(i + 1), branch: 'main' }, report);
      out.rates.push(runs / ((performance.now() - started) / 1000));
      out.busy.push(...(await probe.stop()));
      process.stderr.write(
        `  report ${i + 1}: ${Math.round(out.rates.at(-1)!).toLocaleString('en')} runs/s, /healthz max ${Math.round(Math.max(...out.busy))} ms, peak RSS so far ${Math.round(peakRssMiB(service.child.pid!))} MiB\n`,
      );
    }
    out.peakMiB = peakRssMiB(service.child.pid!);
    return out;
  } finally {
    service.child.kill('SIGTERM');
    await service.exited;
    await redis.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const report = bigReport(RUNS, rng(RUNS));
const bytes = report.reduce((n, c) => n + c.length, 0);
const started = performance.now();
const rounds: Round[] = [];
for (let r = 0; r < ROUNDS; r++) {
  process.stderr.write(`round ${r + 1} of ${ROUNDS}\n`);
  rounds.push(await round(report));
}
const fmt = (n: number) => Math.round(n).toLocaleString('en');
const lines = [
  `Measured with \`npx tsx scripts/bench-ingest-service.ts --runs ${RUNS} --reports ${REPORTS} --rounds ${ROUNDS}${values['node-args'] ? ` --node-args="${values['node-args']}"` : ''}\` (${Math.round((performance.now() - started) / 1000)} s on ${machineSummary()}); a report of ${fmt(RUNS)} runs is ${(bytes / MiB).toFixed(1)} MiB of XML.`,
  '',
  '| round | first report (new tests), runs/s · of the parser | later reports, median runs/s · of the parser | parser alone, median runs/s | /healthz during uploads: max · p99 (ms) | /healthz idle: max · p99 (ms) | peak RSS (MiB) |',
  '|---|---|---|---|---|---|---|',
];
rounds.forEach((r, i) => {
  const parser = median(r.parser);
  const later = median(r.rates.slice(1));
  lines.push(
    `| ${i + 1} | ${fmt(r.rates[0]!)} · ${((r.rates[0]! / r.parser[0]!) * 100).toFixed(1)} % | ${fmt(later)} · ${((later / parser) * 100).toFixed(1)} % | ${fmt(parser)} | ${fmt(Math.max(...r.busy))} · ${fmt(percentile(r.busy, 99))} | ${fmt(Math.max(...r.idle))} · ${fmt(percentile(r.idle, 99))} | ${fmt(r.peakMiB)} |`,
  );
});
lines.push(
  '',
  `Medians over the rounds: first report ${fmt(median(rounds.map((r) => r.rates[0]!)))} runs/s; later reports ${fmt(median(rounds.map((r) => median(r.rates.slice(1)))))} runs/s; longest /healthz answer during uploads ${fmt(median(rounds.map((r) => Math.max(...r.busy))))} ms; peak RSS ${fmt(median(rounds.map((r) => r.peakMiB)))} MiB.`,
);
console.log(lines.join('\n'));
