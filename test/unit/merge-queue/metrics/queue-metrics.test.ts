// The series of every queue: gauges from state counts, `_1h` values from recent histories.
import { expect } from 'chai';
import { computeMergeQueueMetrics, type ActiveEntry, type MetricsQueue } from '../../../../shared/merge-queue/domain/metrics/index.js';
import { at, history, submitted } from './history-builder.js';
import type { Reason } from '../../../../shared/merge-queue/domain/model.js';

const app: MetricsQueue = { id: 'q-app-main', repo: { host: 'github.com', owner: 'acme', name: 'app' }, branch: 'main' };
const appRelease: MetricsQueue = { id: 'q-app-rel', repo: { host: 'github.com', owner: 'acme', name: 'app' }, branch: 'release' };
const lib: MetricsQueue = { id: 'q-lib', repo: { host: 'github.com', owner: 'acme', name: 'lib' }, branch: 'main' };
const now = at(120);
const times = (n: number, value: ActiveEntry): ActiveEntry[] => Array.from({ length: n }, () => value);

describe('metrics: merge-queue series', () => {
  it('emits both queue types of every queue, sorted by repo and branch, zero when idle', () => {
    const series = computeMergeQueueMetrics({ queues: [lib, appRelease, app], activeEntries: [], recentEntries: [], now });
    expect(series.map((s) => `${s.labels.repo} ${s.labels.branch} ${s.labels.queue_type}`)).to.deep.equal([
      'acme/app main main',
      'acme/app main bisection',
      'acme/app release main',
      'acme/app release bisection',
      'acme/lib main main',
      'acme/lib main bisection',
    ]);
    expect(series[0]).to.deep.include({
      depth: 0,
      awaitingMergeability: 0,
      testingSlotsActive: 0,
      restarts: 0,
      conclusions: { merged: 0, failed: 0, cancelled: 0 },
    });
  });

  it('flags a queue whose target branch is broken on its main series', () => {
    const series = computeMergeQueueMetrics({ queues: [{ ...app, targetBroken: true }, lib], activeEntries: [], recentEntries: [], now });
    expect(series.map((s) => [s.labels.repo, s.labels.queue_type, s.targetBranchBroken])).to.deep.equal([
      ['acme/app', 'main', 1],
      ['acme/app', 'bisection', 0],
      ['acme/lib', 'main', 0],
      ['acme/lib', 'bisection', 0],
    ]);
  });

  it('counts the commits the queue merged in the hour by whether their exact tree was tested; manual merges are not its commits', () => {
    const merged = (reason: Reason, mergedTestedTree?: string | null) => ({
      queueId: app.id,
      history: history(
        ...submitted(70, 71),
        [72, 'testing', 'test_run_started', 'r1'],
        [90, 'tests_passed', 'test_run_passed', 'r1'],
        [100, 'merged', reason, 'r1'],
      ),
      ...(mergedTestedTree !== undefined ? { mergedTestedTree } : {}),
    });
    const series = computeMergeQueueMetrics({
      queues: [app],
      activeEntries: [],
      recentEntries: [merged('merge_graph_merge', 'tree1'), merged('merge_graph_merge', null), merged('merge_graph_merge'), merged('manual_merge', null)],
      now,
    });
    expect(series.map((s) => [s.labels.queue_type, s.mergedCommits])).to.deep.equal([
      ['main', { tested: 1, untested: 2 }],
      ['bisection', { tested: 0, untested: 0 }],
    ]);
  });

  it('counts depth (admitted states), awaiting mergeability (not ready) and testing slots', () => {
    const series = computeMergeQueueMetrics({
      queues: [app],
      activeEntries: [
        ...times(4, { queueId: app.id, state: 'not_ready', inBisection: false }),
        ...times(3, { queueId: app.id, state: 'pending', inBisection: false }),
        ...times(2, { queueId: app.id, state: 'testing', inBisection: false }),
        ...times(1, { queueId: app.id, state: 'tests_passed', inBisection: false }),
        ...times(1, { queueId: app.id, state: 'pending_failure', inBisection: false }),
        ...times(2, { queueId: app.id, state: 'testing', inBisection: true }),
        ...times(1, { queueId: app.id, state: 'pending', inBisection: true }),
        ...times(9, { queueId: 'another-orgs-queue', state: 'testing', inBisection: false }),
      ],
      recentEntries: [],
      now,
    });
    const [main, bisection] = series;
    expect(main).to.deep.include({ depth: 7, awaitingMergeability: 4, testingSlotsActive: 2 });
    expect(bisection).to.deep.include({ depth: 3, awaitingMergeability: 0, testingSlotsActive: 2 });
  });

  it('adds up the last hour of every entry of a queue', () => {
    const series = computeMergeQueueMetrics({
      queues: [app],
      activeEntries: [],
      recentEntries: [
        {
          queueId: app.id,
          history: history(
            ...submitted(70, 70),
            [75, 'testing', 'test_run_started', 'r1'],
            [95, 'tests_passed', 'test_run_passed', 'r1'],
            [100, 'merged', 'merge_graph_merge', 'r1'],
          ),
        },
        {
          queueId: app.id,
          history: history(
            ...submitted(0, 10),
            [40, 'testing', 'test_run_started', 'r0'],
            [65, 'pending', 'tests_restarted_by_user'],
            [66, 'cancelled', 'user_requested'],
          ),
        },
        { queueId: app.id, history: history([90, 'not_ready', 'api_requested'], [91, 'cancelled', 'pr_closed']) },
        { queueId: 'unknown', history: history([90, 'not_ready', 'api_requested'], [91, 'cancelled', 'pr_closed']) },
      ],
      now,
    });
    const main = series[0]!;
    expect(main.waitSeconds).to.deep.equal([300]);
    expect(main.testSeconds.sort()).to.deep.equal([1200, 1500]);
    expect(main.restarts).to.equal(1);
    expect(main.conclusions).to.deep.equal({ merged: 1, failed: 0, cancelled: 2 });
    expect(main.timeInQueueSeconds.sort()).to.deep.equal([1800, 3360]);
    expect(series[1]!.conclusions).to.deep.equal({ merged: 0, failed: 0, cancelled: 0 });
  });

  it('merges queues of repositories that differ only by host into one label set', () => {
    const gitlab: MetricsQueue = { id: 'q-gl', repo: { host: 'gitlab.example.com', owner: 'acme', name: 'app' }, branch: 'main' };
    const series = computeMergeQueueMetrics({
      queues: [app, gitlab],
      activeEntries: [
        ...times(1, { queueId: app.id, state: 'pending', inBisection: false }),
        ...times(2, { queueId: gitlab.id, state: 'pending', inBisection: false }),
      ],
      recentEntries: [],
      now,
    });
    expect(series).to.have.length(2);
    expect(series[0]!.depth).to.equal(3);
  });
});
