// Renders the merge-queue series in the Prometheus text format 0.0.4 with prom-client, in a
// registry made for the one scrape (the values belong to the asking organisation only).
//
// The `_1h_total` series are gauges, as in the compatible product (wire-contract §2.12): they
// are rolling one-hour values, not counters, so rate() must not be applied to them. promtool's
// lint flags a `_total` suffix on a gauge; that finding is expected for these two names.
import { Gauge, Histogram, Registry } from 'prom-client';
import { CONCLUSIONS, DURATION_BUCKETS_SECONDS, MQ_SERIES, type QueueTypeSeries } from '../domain/metrics/index.js';
import { WASTE_CAUSES } from '../domain/metrics/cost-report.js';
import { OBJECTIVE_LEVELS } from '../domain/objectives.js';

export const MERGE_QUEUE_METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

const LABELS = ['repo', 'branch', 'queue_type'] as const;

export async function renderMergeQueueMetrics(series: readonly QueueTypeSeries[]): Promise<string> {
  const registry = new Registry();
  const registers = [registry];
  const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames: LABELS, registers });
  const histogram = (name: string, help: string) => new Histogram({ name, help, labelNames: LABELS, buckets: [...DURATION_BUCKETS_SECONDS], registers });

  const depth = gauge(
    MQ_SERIES.depth,
    'Pull requests in the queue now (pending, testing, tests passed, pending failure); excludes those awaiting mergeability.',
  );
  const awaiting = gauge(
    MQ_SERIES.awaitingMergeability,
    'Pull requests submitted but not yet admitted (not ready: waiting on mergeability or other prerequisites).',
  );
  const testing = gauge(MQ_SERIES.testingSlotsActive, 'Pull requests in testing now.');
  const conclusions = new Gauge({
    name: MQ_SERIES.conclusions,
    help: 'Pull requests that left the queue in the last hour, by conclusion (a rolling one-hour value, not a counter).',
    labelNames: [...LABELS, 'conclusion'] as const,
    registers,
  });
  const restarts = gauge(
    MQ_SERIES.restarts,
    'Restarts in the last hour: pull requests sent back from testing, tests passed or pending failure to pending (a rolling one-hour value).',
  );
  const wait = histogram(
    MQ_SERIES.waitDuration,
    'Time from admission (or the last return to pending) to the start of testing, for tests started in the last hour; not-ready time excluded.',
  );
  const test = histogram(MQ_SERIES.testDuration, 'Time spent testing, for testing periods that ended in the last hour.');
  const stalled = gauge(
    MQ_SERIES.statusNotReported,
    'Test runs in progress with a required status not reported (not even as pending) within statusWaitMinutes: CI may not run on the test branches.',
  );
  const wasted = new Gauge({
    name: MQ_SERIES.wastedRuns,
    help: 'Test runs wasted in the last hour by cause: cancelled before a verdict, or failed and re-tested because only known-flaky tests failed (a rolling one-hour value, not a counter).',
    labelNames: [...LABELS, 'cause'] as const,
    registers,
  });
  const broken = gauge(
    MQ_SERIES.targetBranchBroken,
    "1 while CI's results for the target branch's head show tests failing there without any queued change; pull requests failing only those tests wait in the queue.",
  );
  const mergedCommits = new Gauge({
    name: MQ_SERIES.mergedCommits,
    help: 'Commits the queue put on the target branch in the last hour, by whether the forge was checked to produce exactly the tree a passing test run tested (a rolling one-hour value, not a counter).',
    labelNames: [...LABELS, 'tree'] as const,
    registers,
  });
  const objectiveValue = new Gauge({
    name: MQ_SERIES.objectiveValue,
    help: "A queue objective's last measure (docs/objectives.md): minutes for time_in_queue_p50/p90 and head_age, runs for ci_runs_per_merged, a fraction for not_its_fault_share; absent while there is nothing to measure.",
    labelNames: [...LABELS, 'objective'] as const,
    registers,
  });
  const objectiveLevel = new Gauge({
    name: MQ_SERIES.objectiveLevel,
    help: "A queue objective's level: 0 ok, 1 warning, 2 critical, entered once the measure held it for the objective's forMinutes.",
    labelNames: [...LABELS, 'objective'] as const,
    registers,
  });
  const inQueue = histogram(
    MQ_SERIES.timeInQueue,
    'Time from admission to leaving the queue, for pull requests that left in the last hour; not-ready time excluded.',
  );

  for (const s of series) {
    const labels = { ...s.labels };
    depth.set(labels, s.depth);
    awaiting.set(labels, s.awaitingMergeability);
    testing.set(labels, s.testingSlotsActive);
    for (const c of CONCLUSIONS) conclusions.set({ ...labels, conclusion: c }, s.conclusions[c]);
    restarts.set(labels, s.restarts);
    stalled.set(labels, s.testRunsStatusNotReported);
    if (labels.queue_type === 'main') {
      for (const cause of WASTE_CAUSES) wasted.set({ ...labels, cause }, s.wastedRuns[cause]);
      broken.set(labels, s.targetBranchBroken);
      mergedCommits.set({ ...labels, tree: 'tested' }, s.mergedCommits.tested);
      mergedCommits.set({ ...labels, tree: 'untested' }, s.mergedCommits.untested);
      for (const o of s.objectives) {
        objectiveLevel.set({ ...labels, objective: o.metric }, OBJECTIVE_LEVELS.indexOf(o.level));
        if (o.value !== null) objectiveValue.set({ ...labels, objective: o.metric }, o.value);
      }
    }
    for (const [h, values] of [
      [wait, s.waitSeconds],
      [test, s.testSeconds],
      [inQueue, s.timeInQueueSeconds],
    ] as const) {
      h.zero(labels);
      for (const v of values) h.observe(labels, v);
    }
  }
  return registry.metrics();
}
