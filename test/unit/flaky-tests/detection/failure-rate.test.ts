import { expect } from 'chai';
import { evaluateFailureRate } from '../../../../shared/flaky-tests/domain/detection/failure-rate.js';
import type { FailureRateMonitorConfig } from '../../../../shared/flaky-tests/domain/detection/config.js';
import { at, bucket, DAY, HOUR, T0 } from './fixtures.js';

const config: FailureRateMonitorConfig = {
  id: 'broken',
  enabled: true,
  classification: 'broken',
  activationThreshold: 0.8,
  resolutionThreshold: 0.5,
  windowHours: 24,
  minSampleSize: 5,
  staleTimeoutHours: 168,
  scope: { branchClasses: ['main', 'merge_queue'], branchPatterns: [] },
};

describe('failure-rate monitor', () => {
  it('activates when the rate reaches the threshold with enough runs', () => {
    const o = evaluateFailureRate(undefined, [bucket(0, { f: 4, p: 1 })], config, at(HOUR));
    expect(o.key).to.equal('failure_rate:broken');
    expect(o.state).to.deep.include({
      active: true,
      classification: 'broken',
      reason: 'Failure rate 80.0% >= 80% over the last 24h on main (4 of 5 runs failed)',
    });
  });

  it('stays inactive below the minimum sample, whatever the rate', () => {
    const o = evaluateFailureRate(undefined, [bucket(0, { f: 4 })], config, at(HOUR));
    expect(o.state.active).to.equal(false);
    expect(o.state.reason).to.equal('Fewer than 5 runs on main in the last 24h');
  });

  it('has hysteresis: stays active between the thresholds, resolves below the lower one', () => {
    const active = evaluateFailureRate(undefined, [bucket(0, { f: 5 })], config, at(HOUR)).state;
    const between = evaluateFailureRate(active, [bucket(0, { f: 5 }), bucket(0, { p: 3 }, 'master')], config, at(HOUR));
    expect(between.state.active).to.equal(true);
    expect(between.state.reason).to.match(/^Failure rate 62\.5% >= resolution threshold 50% over the last 24h on main and master/);
    const below = evaluateFailureRate(active, [bucket(0, { f: 5, p: 6 })], config, at(HOUR));
    expect(below.state.active).to.equal(false);
    expect(below.state.reason).to.match(/^Failure rate 45\.5% < 50%/);
  });

  it('holds an active state when the window empties below the minimum sample', () => {
    const active = evaluateFailureRate(undefined, [bucket(0, { f: 5 })], config, at(HOUR)).state;
    const later = evaluateFailureRate(active, [bucket(0, { f: 5 })], config, at(2 * DAY));
    expect(later.state.active).to.equal(true);
    expect(later.state.reason).to.equal(active.reason);
  });

  it('resolves an active monitor after the stale timeout without runs', () => {
    const active = evaluateFailureRate(undefined, [bucket(0, { f: 5 })], config, at(HOUR)).state;
    const stale = evaluateFailureRate(active, [bucket(0, { f: 5 })], config, at(8 * DAY));
    expect(stale.state.active).to.equal(false);
    expect(stale.state.reason).to.equal('No passed or failed runs in scope for 7d');
    // …at the exact moment: last run + 168h.
    expect(stale.state.since.getTime()).to.equal(bucket(0, { f: 1 }).lastRunAt!.getTime() + 168 * HOUR);
  });

  it('only counts runs in scope, and skipped runs not at all', () => {
    const pr = evaluateFailureRate(undefined, [bucket(0, { f: 10 }, 'feature/x', 'pull_request')], config, at(HOUR));
    expect(pr.state.active).to.equal(false);
    const skipped = evaluateFailureRate(undefined, [bucket(0, { f: 4, s: 20 })], config, at(HOUR));
    expect(skipped.state.active).to.equal(false);
    const patterned = evaluateFailureRate(
      undefined,
      [bucket(0, { f: 5 }, 'release/1', 'other')],
      { ...config, scope: { branchClasses: [], branchPatterns: ['release/*'] } },
      at(HOUR),
    );
    expect(patterned.state.active).to.equal(true);
  });

  it('counts a bucket while any part of its hour is in the window', () => {
    // Bucket hour [T0, T0+1h) with a 24h window: counted until T0 + 25h.
    const b = [bucket(0, { f: 5 })];
    expect(evaluateFailureRate(undefined, b, config, new Date(T0 + 25 * HOUR - 1)).state.active).to.equal(true);
    expect(evaluateFailureRate(undefined, b, config, new Date(T0 + 25 * HOUR)).state.active).to.equal(false);
  });

  it('finds the moment time alone flips it (passes leaving the window raise the rate)', () => {
    // Old passes at hour 0, failures at hour 10: rate 5/11 < 80% now; once the passes leave
    // the window (T0 + 25h) the rate is 5/5.
    const buckets = [bucket(0, { p: 6 }), bucket(10, { f: 5 })];
    const o = evaluateFailureRate(undefined, buckets, config, at(11 * HOUR));
    expect(o.state.active).to.equal(false);
    expect(o.nextChangeAt).to.equal(T0 + 25 * HOUR);
    const flipped = evaluateFailureRate(o.state, buckets, config, new Date(o.nextChangeAt!));
    expect(flipped.state.active).to.equal(true);
  });

  it('schedules nothing when time cannot change it', () => {
    const o = evaluateFailureRate(undefined, [bucket(0, { p: 20 })], config, at(HOUR));
    expect(o.nextChangeAt).to.equal(null);
    const active = evaluateFailureRate(undefined, [bucket(0, { f: 5 })], config, at(HOUR));
    // Active and nothing else: the window empties (held, below sample), then the stale timeout.
    expect(active.nextChangeAt).to.equal(bucket(0, { f: 1 }).lastRunAt!.getTime() + 168 * HOUR);
  });
});
