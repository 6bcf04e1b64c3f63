import { expect } from 'chai';
import { evaluateFailureCount } from '../../../../shared/flaky-tests/domain/detection/failure-count.js';
import type { FailureCountMonitorConfig } from '../../../../shared/flaky-tests/domain/detection/config.js';
import { at, bucket, DAY, HOUR } from './fixtures.js';

const config: FailureCountMonitorConfig = {
  id: 'fail-main',
  enabled: true,
  classification: 'flaky',
  failureThreshold: 2,
  windowHours: 24,
  resolutionTimeoutHours: 72,
  scope: { branchClasses: ['main'], branchPatterns: [] },
};

describe('failure-count monitor', () => {
  it('activates at N failures within the window', () => {
    expect(evaluateFailureCount(undefined, [bucket(0, { f: 1 })], config, at(HOUR)).state.active).to.equal(false);
    const o = evaluateFailureCount(undefined, [bucket(0, { f: 1 }), bucket(5, { f: 1 })], config, at(6 * HOUR));
    expect(o.key).to.equal('failure_count:fail-main');
    expect(o.state).to.deep.include({ active: true, classification: 'flaky', reason: '2 failures in the last 24h on main' });
    expect(o.state.since.getTime()).to.equal(bucket(5, { f: 1 }).lastFailureAt!.getTime());
    expect(o.nextChangeAt).to.equal(bucket(5, { f: 1 }).lastFailureAt!.getTime() + 72 * HOUR);
  });

  it('failures spread wider than the window do not activate it', () => {
    expect(evaluateFailureCount(undefined, [bucket(0, { f: 1 }), bucket(30, { f: 1 })], config, at(31 * HOUR)).state.active).to.equal(false);
  });

  it('stays active until the resolution timeout after the last failure, even with passes', () => {
    const active = evaluateFailureCount(undefined, [bucket(0, { f: 2 })], config, at(HOUR)).state;
    const withPasses = [bucket(0, { f: 2 }), bucket(30, { p: 50 })];
    const during = evaluateFailureCount(active, withPasses, config, at(2 * DAY));
    expect(during.state.active).to.equal(true);
    expect(during.state.reason).to.equal(active.reason);
    const after = evaluateFailureCount(active, withPasses, config, at(4 * DAY));
    expect(after.state).to.deep.include({ active: false, reason: 'No failures in scope for 72h' });
    expect(after.state.since.getTime()).to.equal(bucket(0, { f: 1 }).lastFailureAt!.getTime() + 72 * HOUR);
  });

  it('ignores failures outside its scope', () => {
    expect(evaluateFailureCount(undefined, [bucket(0, { f: 5 }, 'feature/x', 'pull_request')], config, at(HOUR)).state.active).to.equal(false);
  });
});
