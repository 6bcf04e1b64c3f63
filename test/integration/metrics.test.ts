// GET /v1/getMergeQueueMetrics over real HTTP: a scripted queue history (entries inserted with
// known transitions) must produce exact gauges, counts, buckets and sums; the output must parse
// with an independent parser and pass promtool; repository selection, organisations, 400/404.
import { WASTE_CAUSES } from '../../shared/merge-queue/domain/metrics/cost-report.js';
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { makeEntry } from '../../scripts/lib/entries.js';
import {
  gaugeValue,
  histogramValue,
  parseExposition,
  promtoolAvailable,
  promtoolCheck,
  PROMTOOL_MISSING,
  type Exposition,
} from '../helpers/prometheus-text.js';
import type { Entry, EntryState, HistoryEntry, Queue, Reason } from '../../shared/merge-queue/domain/model.js';
import type { RepoRef } from '../../shared/platform/repo-ref.js';

const APP: RepoRef = { host: 'github.com', owner: 'acme', name: 'app' };
const LIB: RepoRef = { host: 'github.com', owner: 'acme', name: 'lib' };
const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
const LES = ['60', '300', '600', '900', '1800', '3600', '5400', '7200', '+Inf'];

type Step = [minutesAgo: number, to: EntryState, reason: Reason, testRunId?: string];

describe('GET /v1/getMergeQueueMetrics', function () {
  this.timeout(30_000);
  let svc: TestService;
  // Whole seconds, so every duration and sum below is exact.
  let base: number;
  let prNumber = 0;

  beforeEach(async () => {
    svc = await startTestService();
    base = Math.floor(Date.now() / 1000) * 1000;
  });
  afterEach(async () => {
    await svc.close();
  });

  const createQueue = (repo: RepoRef, branch: string, orgId = svc.orgId): Promise<Queue> =>
    svc.ctx.mergeQueue.store.queues.create(orgId, repo, branch, { mode: 'single', concurrency: 2, targetSha: 'f'.repeat(40) });

  /** Inserts an entry whose history is `steps` (minutes before the test's start); its state is the last step's. */
  async function insertEntry(queue: Queue, steps: Step[], over: Partial<Entry> = {}): Promise<void> {
    let from: EntryState | null = null;
    const hist: HistoryEntry[] = steps.map(([ago, to, reason, testRunId]) => {
      const h: HistoryEntry = { at: new Date(base - ago * 60_000), from, to, reason };
      if (testRunId) h.testRunId = testRunId;
      from = to;
      return h;
    });
    const last = hist[hist.length - 1]!;
    prNumber += 1;
    await svc.ctx.mergeQueue.store.entries.insert(
      makeEntry({
        queueId: queue.id,
        orgId: queue.orgId,
        prNumber,
        seq: prNumber,
        state: last.to,
        stateChangedAt: last.at,
        submittedAt: hist[0]!.at,
        lastReason: last.reason,
        history: hist,
        restartCount: 0,
        ...over,
      }),
    );
  }

  const scrape = (query = '', token: string | null = svc.token) =>
    svc.raw('GET', `/v1/getMergeQueueMetrics${query}`, { headers: token === null ? {} : { 'x-api-token': token } });

  async function scrapeOk(query = ''): Promise<{ text: string; exposition: Exposition }> {
    const res = await scrape(query);
    expect(res.status, String(res.body)).to.equal(200);
    expect(res.headers.get('content-type')).to.equal(CONTENT_TYPE);
    const text = res.body as string;
    return { text, exposition: parseExposition(text) };
  }

  /**
   * The scripted history of acme/app main (minutes before now). Expected values are worked out
   * in the test below.
   */
  async function scriptAppMain(queue: Queue): Promise<void> {
    // A: admitted −48, tested −45…−25, merged −24.
    await insertEntry(queue, [
      [50, 'not_ready', 'api_requested'],
      [48, 'pending', 'merge_item_now_ready'],
      [45, 'testing', 'test_run_started', 'run-a'],
      [25, 'tests_passed', 'test_run_passed', 'run-a'],
      [24, 'merged', 'merge_graph_merge', 'run-a'],
    ]);
    // B: restarted once, then failed.
    await insertEntry(queue, [
      [59, 'not_ready', 'api_requested'],
      [58, 'pending', 'merge_item_now_ready'],
      [57, 'testing', 'test_run_started', 'run-b1'],
      [55, 'pending', 'tests_restarted_by_api_request'],
      [50, 'testing', 'test_run_started', 'run-b2'],
      [10, 'pending_failure', 'test_run_failed', 'run-b2'],
      [9, 'failed', 'test_run_required_status_failed', 'run-b2'],
    ]);
    // C: closed before it was ever admitted.
    await insertEntry(queue, [
      [30, 'not_ready', 'api_requested'],
      [20, 'cancelled', 'pr_closed'],
    ]);
    // D: everything happened more than an hour ago.
    await insertEntry(queue, [
      [200, 'not_ready', 'api_requested'],
      [190, 'pending', 'merge_item_now_ready'],
      [180, 'testing', 'test_run_started', 'run-d'],
      [100, 'tests_passed', 'test_run_passed', 'run-d'],
      [90, 'merged', 'merge_graph_merge', 'run-d'],
    ]);
    // E: testing since before the window (its wait is older than an hour).
    await insertEntry(queue, [
      [130, 'not_ready', 'api_requested'],
      [125, 'pending', 'merge_item_now_ready'],
      [65, 'testing', 'test_run_started', 'run-e'],
    ]);
    // F: pending; G: not ready.
    await insertEntry(queue, [
      [5, 'not_ready', 'api_requested'],
      [4, 'pending', 'merge_item_now_ready'],
    ]);
    await insertEntry(queue, [[3, 'not_ready', 'api_requested']]);
    // H and I: a failed batch of two, bisected. H is testing in the bisection now; I was isolated and failed.
    const batch: Step[] = [
      [41, 'not_ready', 'api_requested'],
      [40, 'pending', 'merge_item_now_ready'],
      [39, 'testing', 'test_run_started', 'run-m'],
      [30, 'pending_failure', 'test_run_failed', 'run-m'],
      [29, 'pending', 'bisection_required', 'run-m'],
    ];
    await insertEntry(queue, [...batch, [28, 'testing', 'test_run_started', 'run-x-bisection']], { bisectionOf: 'run-m' });
    await insertEntry(
      queue,
      [...batch, [28, 'testing', 'test_run_started', 'run-y-bisection'], [18, 'failed', 'test_run_required_status_failed', 'run-y-bisection']],
      { bisectionOf: 'run-m' },
    );
  }

  const labels = (repo: string, branch: string, queueType: 'main' | 'bisection') => ({ repo, branch, queue_type: queueType });
  const buckets = (counts: number[]) => Object.fromEntries(LES.map((le, i) => [le, counts[i]]));

  it('reports exact gauges, conclusions, restarts and histograms for a scripted history', async () => {
    const queue = await createQueue(APP, 'main');
    await scriptAppMain(queue);
    const { exposition: f } = await scrapeOk();
    const main = labels('acme/app', 'main', 'main');
    const bis = labels('acme/app', 'main', 'bisection');

    // Gauges: E testing, F pending (depth 2), G not ready; H testing in a bisection.
    expect(gaugeValue(f, 'mq_depth_current', main)).to.equal(2);
    expect(gaugeValue(f, 'mq_awaiting_mergeability', main)).to.equal(1);
    expect(gaugeValue(f, 'mq_testing_slots_active', main)).to.equal(1);
    expect(gaugeValue(f, 'mq_depth_current', bis)).to.equal(1);
    expect(gaugeValue(f, 'mq_awaiting_mergeability', bis)).to.equal(0);
    expect(gaugeValue(f, 'mq_testing_slots_active', bis)).to.equal(1);

    // A merged, B failed, C cancelled (main); I failed in the bisection. D is older than an hour.
    for (const [conclusion, m, b] of [
      ['merged', 1, 0],
      ['failed', 1, 1],
      ['cancelled', 1, 0],
    ] as const) {
      expect(gaugeValue(f, 'mq_pr_conclusions_1h_total', { ...main, conclusion }), `main ${conclusion}`).to.equal(m);
      expect(gaugeValue(f, 'mq_pr_conclusions_1h_total', { ...bis, conclusion }), `bisection ${conclusion}`).to.equal(b);
    }
    // B's restart; entering and moving within the bisection are not restarts.
    expect(gaugeValue(f, 'mq_pr_restarts_1h_total', main)).to.equal(1);
    expect(gaugeValue(f, 'mq_pr_restarts_1h_total', bis)).to.equal(0);

    // Waits (s): A 180, B 60 and 300, H 60, I 60 (main); H 60, I 60 (bisection). E's is too old.
    expect(histogramValue(f, 'mq_pr_wait_duration_1h_seconds', main)).to.deep.equal({ buckets: buckets([3, 5, 5, 5, 5, 5, 5, 5, 5]), sum: 660, count: 5 });
    expect(histogramValue(f, 'mq_pr_wait_duration_1h_seconds', bis)).to.deep.equal({ buckets: buckets([2, 2, 2, 2, 2, 2, 2, 2, 2]), sum: 120, count: 2 });
    // Tests (s): A 1200, B 120 and 2400, H 540, I 540 (main); I 600 (bisection). E and H are still testing.
    expect(histogramValue(f, 'mq_pr_test_duration_1h_seconds', main)).to.deep.equal({ buckets: buckets([0, 1, 3, 3, 4, 5, 5, 5, 5]), sum: 4800, count: 5 });
    expect(histogramValue(f, 'mq_pr_test_duration_1h_seconds', bis)).to.deep.equal({ buckets: buckets([0, 0, 1, 1, 1, 1, 1, 1, 1]), sum: 600, count: 1 });
    // Time in queue (s): A 1440, B 2940 (main); I 1320 (bisection). C never was admitted.
    expect(histogramValue(f, 'mq_pr_time_in_queue_1h_seconds', main)).to.deep.equal({ buckets: buckets([0, 0, 0, 0, 1, 2, 2, 2, 2]), sum: 4380, count: 2 });
    expect(histogramValue(f, 'mq_pr_time_in_queue_1h_seconds', bis)).to.deep.equal({ buckets: buckets([0, 0, 0, 0, 1, 1, 1, 1, 1]), sum: 1320, count: 1 });
  });

  it('emits the documented families, types and labels on every sample', async () => {
    await scriptAppMain(await createQueue(APP, 'main'));
    await createQueue(APP, 'release');
    const { text, exposition } = await scrapeOk();
    const { families } = exposition;
    const types: Record<string, string> = {
      mq_depth_current: 'GAUGE',
      mq_awaiting_mergeability: 'GAUGE',
      mq_testing_slots_active: 'GAUGE',
      mq_pr_conclusions_1h_total: 'GAUGE',
      mq_pr_restarts_1h_total: 'GAUGE',
      mq_pr_wait_duration_1h_seconds: 'HISTOGRAM',
      mq_pr_test_duration_1h_seconds: 'HISTOGRAM',
      mq_pr_time_in_queue_1h_seconds: 'HISTOGRAM',
      mq_test_runs_status_not_reported: 'GAUGE',
      mq_test_runs_wasted_1h: 'GAUGE',
      mq_target_branch_broken: 'GAUGE',
      mq_merged_commits_1h: 'GAUGE',
      mq_objective_value: 'GAUGE',
      mq_objective_level: 'GAUGE',
    };
    expect([...families.keys()].sort()).to.deep.equal(Object.keys(types).sort());
    for (const [name, type] of Object.entries(types)) {
      const fam = families.get(name)!;
      expect(fam.type, name).to.equal(type);
      // Two queues × two queue types (× three conclusions, × nine buckets).
      const lines: [string, string[], number][] =
        type === 'HISTOGRAM'
          ? [
              [`${name}_bucket`, ['le'], 36],
              [`${name}_sum`, [], 4],
              [`${name}_count`, [], 4],
            ]
          : name === 'mq_pr_conclusions_1h_total'
            ? [[name, ['conclusion'], 12]]
            : name === 'mq_test_runs_wasted_1h'
              ? [[name, ['cause'], 2 * WASTE_CAUSES.length]] // main series only, every cause
              : name === 'mq_target_branch_broken'
                ? [[name, [], 2]] // main series only
                : name === 'mq_merged_commits_1h'
                  ? [[name, ['tree'], 4]] // main series only, tested and untested
                  : name.startsWith('mq_objective_')
                    ? [[name, ['objective'], 0]] // only for queues with objectives (a test of its own)
                    : [[name, [], 4]];
      for (const [sampleName, extra, n] of lines) {
        const samples = exposition.samples.get(sampleName) ?? [];
        expect(samples, sampleName).to.have.length(n);
        for (const m of samples) {
          expect(Object.keys(m.labels ?? {}).sort(), sampleName).to.deep.equal(['branch', 'queue_type', 'repo', ...extra].sort());
          expect(m.labels?.repo).to.equal('acme/app');
          expect(['main', 'bisection']).to.include(m.labels?.queue_type);
          if (extra.includes('le')) expect(LES).to.include(m.labels?.le);
        }
      }
    }
    expect(
      families
        .get('mq_pr_conclusions_1h_total')!
        .metrics.map((m) => m.labels?.conclusion)
        .sort(),
    ).to.deep.equal(['cancelled', 'cancelled', 'cancelled', 'cancelled', 'failed', 'failed', 'failed', 'failed', 'merged', 'merged', 'merged', 'merged']);
    // The raw text carries the bucket bounds exactly as the compatible product's.
    expect(text).to.include('mq_pr_wait_duration_1h_seconds_bucket{le="5400",repo="acme/app",branch="main",queue_type="main"} 5');
  });

  it('passes promtool check metrics (the two _1h_total gauges keep their compatible names)', function () {
    if (!promtoolAvailable()) {
      if (process.env.CI) throw new Error(PROMTOOL_MISSING);
      console.log(`      skipped: ${PROMTOOL_MISSING}`);
      this.skip();
    }
    return (async () => {
      await scriptAppMain(await createQueue(APP, 'main'));
      await createQueue(LIB, 'main');
      const { text } = await scrapeOk();
      const { status, findings } = promtoolCheck(text);
      // Exit 3 = lint findings only (1 would be an invalid exposition). The compatible product
      // types these rolling one-hour values as gauges with a `_total` name; promtool's lint flags
      // exactly that, and nothing else may be flagged.
      expect(findings).to.deep.equal([
        'mq_pr_conclusions_1h_total non-counter metrics should not have "_total" suffix',
        'mq_pr_restarts_1h_total non-counter metrics should not have "_total" suffix',
      ]);
      expect(status).to.equal(3);
    })();
  });

  it("exports each objective's level and measure; the documented alert rules pass promtool and fire on a critical level", async function () {
    if (!promtoolAvailable()) {
      if (process.env.CI) throw new Error(PROMTOOL_MISSING);
      this.skip();
    }
    const queue = await createQueue(APP, 'main');
    // The head of the queue has waited 45 minutes: critical for a head-age objective of 10 / 30.
    await insertEntry(queue, [
      [45, 'not_ready', 'api_requested'],
      [45, 'pending', 'merge_item_now_ready'],
    ]);
    const stored = await svc.ctx.mergeQueue.store.queues.update(
      queue.id,
      queue.version,
      {
        objectives: [
          { metric: 'head_age', warning: 10, critical: 30, windowHours: 24, forMinutes: 0 },
          { metric: 'time_in_queue_p50', warning: 60, critical: 120, windowHours: 24, forMinutes: 0 },
        ],
      },
      'objectives',
    );
    await svc.ctx.mergeQueue.services.objectives.evaluate(stored!, new Date(base));
    const { text, exposition } = await scrapeOk();
    const labels = { repo: 'acme/app', branch: 'main', queue_type: 'main' };
    expect(gaugeValue(exposition, 'mq_objective_level', { ...labels, objective: 'head_age' })).to.equal(2);
    expect(gaugeValue(exposition, 'mq_objective_value', { ...labels, objective: 'head_age' })).to.equal(45);
    // Nothing merged in the window: level ok, no measure exported.
    expect(gaugeValue(exposition, 'mq_objective_level', { ...labels, objective: 'time_in_queue_p50' })).to.equal(0);
    expect(gaugeValue(exposition, 'mq_objective_value', { ...labels, objective: 'time_in_queue_p50' })).to.equal(undefined);
    expect(promtoolCheck(text).findings.filter((l) => !l.includes('_total'))).to.deep.equal([]);

    // The example rules of docs/metrics.md: valid, and a critical level fires the page.
    const doc = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8');
    const rules = /### Alerting on queue objectives[\s\S]*?```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(rules, 'the rules block of docs/metrics.md').to.be.a('string');
    const dir = mkdtempSync(path.join(tmpdir(), 'openmq-rules-'));
    try {
      writeFileSync(path.join(dir, 'rules.yml'), rules!);
      const check = spawnSync('promtool', ['check', 'rules', path.join(dir, 'rules.yml')], { encoding: 'utf8' });
      expect(check.status, check.stdout + check.stderr).to.equal(0);
      const series = `mq_objective_level{repo="acme/app",branch="main",queue_type="main",objective="head_age"}`;
      writeFileSync(
        path.join(dir, 'test.yml'),
        [
          'rule_files: [rules.yml]',
          'evaluation_interval: 1m',
          'tests:',
          '  - interval: 1m',
          '    input_series:',
          `      - series: '${series}'`,
          "        values: '0 0 2 2'",
          '    alert_rule_test:',
          '      - eval_time: 1m',
          '        alertname: MergeQueueObjectiveCritical',
          '        exp_alerts: []',
          '      - eval_time: 3m',
          '        alertname: MergeQueueObjectiveCritical',
          '        exp_alerts:',
          '          - exp_labels: {severity: page, repo: acme/app, branch: main, queue_type: main, objective: head_age}',
          '            exp_annotations:',
          '              summary: "acme/app → main: head_age is critical"',
          `              description: "Measured 2 (level 2). See the queue's objectives in the dashboard or getQueue's objectiveStatus."`,
          '',
        ].join('\n'),
      );
      const test = spawnSync('promtool', ['test', 'rules', path.join(dir, 'test.yml')], { encoding: 'utf8' });
      expect(test.status, test.stdout + test.stderr).to.equal(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers every repository of the organisation without parameters, one repository with repo and repoHost', async () => {
    await createQueue(APP, 'main');
    await createQueue(APP, 'release');
    await createQueue(LIB, 'main');
    await createQueue({ host: 'github.com', owner: 'acme/platform', name: 'svc' }, 'main');

    const all = (await scrapeOk()).exposition.families.get('mq_depth_current')!;
    expect(all.metrics.map((m) => `${m.labels?.repo} ${m.labels?.branch} ${m.labels?.queue_type}`)).to.deep.equal([
      'acme/app main main',
      'acme/app main bisection',
      'acme/app release main',
      'acme/app release bisection',
      'acme/lib main main',
      'acme/lib main bisection',
      'acme/platform/svc main main',
      'acme/platform/svc main bisection',
    ]);

    const one = (await scrapeOk('?repo=acme/app&repoHost=github.com')).exposition.families.get('mq_depth_current')!;
    expect(one.metrics.map((m) => `${m.labels?.repo} ${m.labels?.branch}`)).to.deep.equal([
      'acme/app main',
      'acme/app main',
      'acme/app release',
      'acme/app release',
    ]);
    // Owners with slashes (nested groups) and any letter case find the repository.
    const nested = (await scrapeOk('?repo=ACME/Platform/svc&repoHost=github.com')).exposition.families.get('mq_depth_current')!;
    expect(nested.metrics.map((m) => m.labels?.repo)).to.deep.equal(['acme/platform/svc', 'acme/platform/svc']);
  });

  it('answers an organisation without queues with an exposition of no samples', async () => {
    const { text, exposition } = await scrapeOk();
    expect(exposition.families.get('mq_depth_current')?.metrics ?? []).to.deep.equal([]);
    if (promtoolAvailable()) expect(promtoolCheck(text).findings.filter((l) => !l.includes('_total'))).to.deep.equal([]);
  });

  it('never shows another organisation its queues: 404 for its repository, absent from the org-wide answer', async () => {
    const other = await svc.addOrg('other-org');
    const theirs = await createQueue(LIB, 'main', other.orgId);
    await insertEntry(theirs, [
      [5, 'not_ready', 'api_requested'],
      [4, 'pending', 'merge_item_now_ready'],
    ]);
    await createQueue(APP, 'main');

    const res = await scrape('?repo=acme/lib&repoHost=github.com');
    expect(res.status).to.equal(404);
    expect((res.body as { error: { code: string } }).error.code).to.equal('repository_not_found');
    const mine = (await scrapeOk()).exposition.families.get('mq_depth_current')!;
    expect(mine.metrics.map((m) => m.labels?.repo)).to.deep.equal(['acme/app', 'acme/app']);

    // The other organisation sees its own queue, with its entry.
    const theirsRes = await scrape('?repo=acme/lib&repoHost=github.com', other.token);
    expect(theirsRes.status).to.equal(200);
    expect(gaugeValue(parseExposition(theirsRes.body as string), 'mq_depth_current', labels('acme/lib', 'main', 'main'))).to.equal(1);
  });

  it('answers 404 for an unknown repository or host', async () => {
    await createQueue(APP, 'main');
    for (const query of ['?repo=acme/nothing&repoHost=github.com', '?repo=acme/app&repoHost=gitlab.com']) {
      const res = await scrape(query);
      expect(res.status, query).to.equal(404);
      expect((res.body as { error: { code: string } }).error.code).to.equal('repository_not_found');
    }
  });

  it('answers 400 when repo and repoHost do not come together or are malformed', async () => {
    await createQueue(APP, 'main');
    const cases: [string, string][] = [
      ['?repo=acme/app', '/repoHost'],
      ['?repoHost=github.com', '/repo'],
      ['?repo=acme&repoHost=github.com', '/repo'],
      ['?repo=acme/app/&repoHost=github.com', '/repo'],
      ['?repo=acme/app&repoHost=git%20hub', '/repoHost'],
      ['?repo=acme/app&repo=acme/lib&repoHost=github.com', '/repo'],
      ['?repo=acme/app&repoHost=github.com&branch=main', '/branch'],
    ];
    for (const [query, path] of cases) {
      const res = await scrape(query);
      expect(res.status, query).to.equal(400);
      const body = res.body as { error: { code: string; details: { path: string }[] } };
      expect(body.error.code, query).to.equal('invalid_request');
      expect(
        body.error.details.map((d) => d.path),
        query,
      ).to.deep.equal([path]);
    }
  });

  it('requires an API token', async () => {
    expect((await scrape('', null)).status).to.equal(401);
    expect((await scrape('', 'omq_not_a_token_at_all')).status).to.equal(401);
  });
});
