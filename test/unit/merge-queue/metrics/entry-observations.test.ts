// What one entry's history contributes to the `_1h` merge-queue series.
import { expect } from 'chai';
import { observeEntry, runQueueType, type Window } from '../../../../shared/merge-queue/domain/metrics/index.js';
import { T0, history, submitted } from './history-builder.js';

/** A window that covers minutes (from, to] of the test clock. */
const win = (from: number, to: number): Window => ({ start: T0 + from * 60_000, end: T0 + to * 60_000 });
const ALL = win(-1, 10_000);

describe('metrics: entry observations', () => {
  it('measures wait, test duration and time in queue of a merged entry', () => {
    const o = observeEntry(
      history(
        ...submitted(0, 2),
        [7, 'testing', 'test_run_started', 'run-a'],
        [27, 'tests_passed', 'test_run_passed', 'run-a'],
        [30, 'merged', 'merge_graph_merge', 'run-a'],
      ),
      ALL,
    );
    expect(o.waits).to.deep.equal([{ seconds: 300, queueType: 'main' }]);
    expect(o.tests).to.deep.equal([{ seconds: 1200, queueType: 'main' }]);
    expect(o.restarts).to.deep.equal([]);
    // Admitted at minute 2, merged at 30: the 2 minutes not ready do not count.
    expect(o.exit).to.deep.equal({ conclusion: 'merged', queueType: 'main', timeInQueueSeconds: 1680 });
  });

  it('leaves time spent not ready out of the wait and the time in queue', () => {
    const o = observeEntry(
      history(
        ...submitted(0, 1),
        [3, 'not_ready', 'merge_item_no_longer_ready'],
        [10, 'pending', 'merge_item_now_ready'],
        [12, 'testing', 'test_run_started', 'run-a'],
        [20, 'cancelled', 'user_requested'],
      ),
      ALL,
    );
    expect(o.waits).to.deep.equal([{ seconds: 240, queueType: 'main' }]);
    expect(o.tests).to.deep.equal([{ seconds: 480, queueType: 'main' }]);
    expect(o.exit).to.deep.equal({ conclusion: 'cancelled', queueType: 'main', timeInQueueSeconds: 720 });
  });

  it('counts a restart and measures the second wait from the restart', () => {
    const o = observeEntry(
      history(
        ...submitted(0, 0),
        [1, 'testing', 'test_run_started', 'run-a'],
        [11, 'pending', 'tests_restarted_by_api_request'],
        [13, 'testing', 'test_run_started', 'run-b'],
        [33, 'pending_failure', 'test_run_failed', 'run-b'],
        [40, 'failed', 'test_run_required_status_failed', 'run-b'],
      ),
      ALL,
    );
    expect(o.waits.map((w) => w.seconds)).to.deep.equal([60, 120]);
    expect(o.tests.map((t) => t.seconds)).to.deep.equal([600, 1200]);
    expect(o.restarts).to.deep.equal(['main']);
    expect(o.exit).to.deep.equal({ conclusion: 'failed', queueType: 'main', timeInQueueSeconds: 2400 });
  });

  it('counts restarts from tests_passed and pending_failure too', () => {
    const o = observeEntry(
      history(
        ...submitted(0, 0),
        [1, 'testing', 'test_run_started', 'run-a'],
        [2, 'tests_passed', 'test_run_passed', 'run-a'],
        [3, 'pending', 'prerequisite_merge_item_failed'],
        [4, 'testing', 'test_run_started', 'run-b'],
        [5, 'pending_failure', 'test_run_failed', 'run-b'],
        [6, 'pending', 'prerequisite_merge_item_cancelled'],
      ),
      ALL,
    );
    expect(o.restarts).to.deep.equal(['main', 'main']);
    expect(o.exit).to.equal(null);
  });

  it('counts only what completes inside the window, durations begun before it in full', () => {
    const h = history(
      ...submitted(0, 0),
      [50, 'testing', 'test_run_started', 'run-a'],
      [70, 'tests_passed', 'test_run_passed', 'run-a'],
      [75, 'merged', 'merge_graph_merge', 'run-a'],
    );
    const o = observeEntry(h, win(60, 120));
    expect(o.waits).to.deep.equal([]);
    expect(o.tests).to.deep.equal([{ seconds: 1200, queueType: 'main' }]);
    expect(o.exit?.timeInQueueSeconds).to.equal(4500);
    // The window is (start, end]: a transition exactly at the start is out, one at the end is in.
    expect(observeEntry(h, win(70, 130)).tests).to.deep.equal([]);
    expect(observeEntry(h, win(10, 70)).tests).to.have.length(1);
  });

  it('reports a bisection as queue_type bisection, without counting its steps as restarts', () => {
    const o = observeEntry(
      history(
        ...submitted(0, 0),
        [1, 'testing', 'test_run_started', 'main-1'],
        [21, 'pending_failure', 'test_run_failed', 'main-1'],
        [22, 'pending', 'bisection_required', 'main-1'],
        [25, 'testing', 'test_run_started', 'b-1-bisection'],
        [35, 'pending', 'bisection_required'],
        [36, 'testing', 'test_run_started', 'b-2-bisection'],
        [46, 'failed', 'test_run_required_status_failed', 'b-2-bisection'],
      ),
      ALL,
    );
    expect(o.waits).to.deep.equal([
      { seconds: 60, queueType: 'main' },
      { seconds: 180, queueType: 'bisection' },
      { seconds: 60, queueType: 'bisection' },
    ]);
    expect(o.tests).to.deep.equal([
      { seconds: 1200, queueType: 'main' },
      { seconds: 600, queueType: 'bisection' },
      { seconds: 600, queueType: 'bisection' },
    ]);
    expect(o.restarts).to.deep.equal([]);
    expect(o.exit).to.deep.equal({ conclusion: 'failed', queueType: 'bisection', timeInQueueSeconds: 2760 });
  });

  it('returns an entry whose bisection was abandoned to the main queue', () => {
    const o = observeEntry(
      history(
        ...submitted(0, 0),
        [1, 'testing', 'test_run_started', 'main-1'],
        [2, 'pending_failure', 'test_run_failed', 'main-1'],
        [3, 'pending', 'bisection_required', 'main-1'],
        [4, 'testing', 'test_run_started', 'b-1-bisection'],
        [6, 'pending', 'manual_push_to_target_branch', 'main-1'],
        [7, 'testing', 'test_run_started', 'main-2'],
        [9, 'tests_passed', 'test_run_passed', 'main-2'],
        [10, 'merged', 'merge_graph_merge', 'main-2'],
      ),
      ALL,
    );
    expect(o.restarts).to.deep.equal(['bisection']);
    expect(o.waits.map((w) => w.queueType)).to.deep.equal(['main', 'bisection', 'main']);
    expect(o.exit).to.deep.equal({ conclusion: 'merged', queueType: 'main', timeInQueueSeconds: 600 });
  });

  it('concludes an entry that never was admitted without a time in queue', () => {
    const cancelled = observeEntry(history([0, 'not_ready', 'api_requested'], [5, 'cancelled', 'pr_closed']), ALL);
    expect(cancelled).to.deep.equal({ waits: [], tests: [], restarts: [], exit: { conclusion: 'cancelled', queueType: 'main', timeInQueueSeconds: null } });
    const direct = observeEntry(history([0, 'not_ready', 'api_requested'], [1, 'merged', 'merge_graph_direct_merge']), ALL);
    expect(direct.exit).to.deep.equal({ conclusion: 'merged', queueType: 'main', timeInQueueSeconds: null });
  });

  it('never reports a negative duration when clocks disagree', () => {
    const o = observeEntry(history(...submitted(0, 5), [4, 'testing', 'test_run_started', 'run-a'], [3, 'failed', 'test_run_timeout', 'run-a']), ALL);
    expect(o.waits).to.deep.equal([{ seconds: 0, queueType: 'main' }]);
    expect(o.tests).to.deep.equal([{ seconds: 0, queueType: 'main' }]);
    expect(o.exit?.timeInQueueSeconds).to.equal(0);
  });

  it('tells bisection runs by their id', () => {
    expect(runQueueType('0f3c-bisection')).to.equal('bisection');
    expect(runQueueType('0f3c')).to.equal('main');
    expect(runQueueType(undefined)).to.equal(null);
  });
});
