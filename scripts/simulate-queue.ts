// What-if on a queue's own history, from the command line (what POST /v1/simulateQueue answers):
//
//   npx tsx scripts/simulate-queue.ts --repo owner/name --branch main [--host github.com] [--org <slug>]
//     [--days 30] [--max-prs 500] [--candidate concurrency=4,batch=true,batchingMinSize=4 ...]
//     [--goal latency | --goal cost --max-p50 <minutes> [--max-p95 <minutes>]] [--json]
//
// With the embedded database the service must be stopped first (one process owns the data
// directory); with MONGO_URL it works while the service runs.
import { parseArgs } from 'node:util';
import { embeddedDbDir, loadConfig } from '../shared/composition/config.js';
import { openDatabase } from '../shared/platform/database/open-database.js';
import { createAccountsStore } from '../shared/platform/accounts/accounts-module.js';
import { createMergeQueueStore } from '../shared/merge-queue/store/store.js';
import { QueueSimulationService } from '../shared/merge-queue/simulation/queue-simulation-service.js';
import type { SettingsOutcome } from '../shared/merge-queue/simulation/what-if.js';
import { parseSimulateQueue, SIMULATION_LIMITS } from '../api/merge-queue/schemas/simulation-schemas.js';

const { values } = parseArgs({
  options: {
    repo: { type: 'string' },
    host: { type: 'string', default: 'github.com' },
    branch: { type: 'string', default: 'main' },
    org: { type: 'string' },
    days: { type: 'string', default: String(SIMULATION_LIMITS.defaultDays) },
    'max-prs': { type: 'string', default: String(SIMULATION_LIMITS.defaultMaxPullRequests) },
    candidate: { type: 'string', multiple: true, default: [] },
    goal: { type: 'string' },
    'max-p50': { type: 'string' },
    'max-p95': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});

/** `key=value,key=value` → settings (numbers and booleans typed; the schema checks the rest). */
function candidate(text: string): Record<string, string | number | boolean> {
  return Object.fromEntries(
    text.split(',').map((pair) => {
      const [key, raw = ''] = pair.split('=');
      const value = raw === 'true' ? true : raw === 'false' ? false : /^\d+$/.test(raw) ? Number(raw) : raw;
      return [key!.trim(), value];
    }),
  );
}

const [owner, name] = (values.repo ?? '').split('/');
const goal =
  values.goal === 'latency'
    ? { kind: 'lowest_latency' }
    : values.goal === 'cost'
      ? { kind: 'lowest_ci_cost', maxP50Minutes: Number(values['max-p50']), ...(values['max-p95'] ? { maxP95Minutes: Number(values['max-p95']) } : {}) }
      : undefined;
const body = parseSimulateQueue({
  repo: { host: values.host, owner, name },
  targetBranch: values.branch,
  days: Number(values.days),
  maxPullRequests: Number(values['max-prs']),
  candidates: values.candidate.map(candidate),
  ...(goal ? { goal } : {}),
});

const config = loadConfig();
const db = await openDatabase(config.mongoUrl ? { mongoUrl: config.mongoUrl } : { dataDir: embeddedDbDir(config) });
try {
  const store = createMergeQueueStore(db);
  const org = await createAccountsStore(db).orgs.findBySlug(values.org ?? config.orgSlug);
  const queue = org ? await store.queues.find(org.id, body.repo, body.targetBranch) : null;
  if (!queue) throw new Error(`no merge queue for ${body.repo.host}/${body.repo.owner}/${body.repo.name} branch ${body.targetBranch}`);
  const result = await new QueueSimulationService({ store }).simulate(queue, {
    days: body.days ?? SIMULATION_LIMITS.defaultDays,
    maxPullRequests: body.maxPullRequests ?? SIMULATION_LIMITS.defaultMaxPullRequests,
    candidates: body.candidates ?? [],
    goal: body.goal ?? null,
  });
  if (values.json) {
    console.log(JSON.stringify(result, null, 2));
  } else {
    const h = result.history;
    console.log(`History ${h.from.toISOString()} – ${h.to.toISOString()}: ${h.pullRequests} pull requests replayed${h.sampled ? ' (sampled)' : ''}`);
    for (const note of h.notes) console.log(`  ${note}`);
    const rows: [string, SettingsOutcome][] = [
      ['current', result.current],
      ...result.candidates.map((c, i): [string, SettingsOutcome] => [`candidate ${i + 1}`, c]),
    ];
    if (result.advice?.best) rows.push(['advised', result.advice.best]);
    const n = (x: number | null, d = 0): string => (x === null ? '—' : x.toFixed(d));
    console.log('\n| settings | p50 | p90 | p99 (min) | merges / h | CI runs / merged | CI min / merged | innocent ejections | changed settings |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const [label, o] of rows) {
      const e = o.efficiency;
      const changed = Object.entries(o.settings)
        .filter(([k, v]) => result.current.settings[k as keyof typeof o.settings] !== v)
        .map(([k, v]) => `${k}=${String(v)}`);
      console.log(
        `| ${label}${o.truncated ? ' (fell behind, stopped)' : ''} | ${n(e.timeInQueueMinutes.p50)} | ${n(e.timeInQueueMinutes.p90)} | ${n(e.timeInQueueMinutes.p99)} | ${n(e.mergesPerHour, 1)} | ${n(e.ciRunsPerMerged, 2)} | ${n(e.ciMinutesPerMerged)} | ${e.innocentEjections} | ${changed.join(', ') || '—'} |`,
      );
    }
    for (const r of result.advice?.reasons ?? []) console.log(`\n${r}`);
  }
} finally {
  await db.close();
}
