import { expect } from 'chai';
import { evaluatePassOnRetry, mergeCommitOutcomes, retryDetectedAt } from '../../../../shared/flaky-tests/domain/detection/pass-on-retry.js';
import type { PassOnRetryConfig } from '../../../../shared/flaky-tests/domain/detection/config.js';
import { at, DAY, detection, HOUR, T0 } from './fixtures.js';

const config: PassOnRetryConfig = { enabled: true, recoveryDays: 7, scope: { branchClasses: [], branchPatterns: ['*'] } };

describe('pass-on-retry monitor', () => {
  it('is inactive without evidence and never schedules a re-evaluation', () => {
    const o = evaluatePassOnRetry(undefined, [], config, at(0));
    expect(o.state.active).to.equal(false);
    expect(o.nextChangeAt).to.equal(null);
    expect(o.state.classification).to.equal('flaky');
  });

  it('activates on a detection, names the commit and where, and resolves `recoveryDays` later', () => {
    const o = evaluatePassOnRetry(undefined, [detection(0, 'abc1234def')], config, at(HOUR));
    expect(o.state).to.deep.include({ active: true, reason: 'Failed and passed on the same commit abc1234 on main' });
    expect(o.state.since.getTime()).to.equal(T0);
    expect(o.nextChangeAt).to.equal(T0 + 7 * DAY);
  });

  it('describes PRs, merge queues and other branches', () => {
    const reason = (d: ReturnType<typeof detection>) => evaluatePassOnRetry(undefined, [d], config, at(HOUR)).state.reason;
    expect(reason(detection(0, 'ffffffff00', 'feature/x', 'pull_request', 12))).to.equal('Failed and passed on the same commit fffffff on PR #12');
    expect(reason(detection(0, 'ffffffff00', 'trunk-merge/pr-3/abc', 'merge_queue'))).to.equal(
      'Failed and passed on the same commit fffffff in the merge queue (trunk-merge/pr-3/abc)',
    );
    expect(reason(detection(0, 'ffffffff00', 'release/1.2', 'other'))).to.equal('Failed and passed on the same commit fffffff on release/1.2');
  });

  it('counts distinct commits in the recovery window and names the newest', () => {
    const o = evaluatePassOnRetry(undefined, [detection(0, 'aaaaaaa1'), detection(DAY, 'bbbbbbb2'), detection(2 * DAY, 'bbbbbbb2')], config, at(3 * DAY));
    expect(o.state.reason).to.equal('Failed and passed on the same commit bbbbbbb on main (2 commits in the last 7 days)');
    expect(o.nextChangeAt).to.equal(T0 + 9 * DAY);
  });

  it('resolves exactly at the end of the recovery period, with that time', () => {
    const active = evaluatePassOnRetry(undefined, [detection(0)], config, at(HOUR)).state;
    const before = evaluatePassOnRetry(active, [detection(0)], config, at(7 * DAY - 1));
    expect(before.state.active).to.equal(true);
    const after = evaluatePassOnRetry(active, [detection(0)], config, at(9 * DAY));
    expect(after.state).to.deep.include({ active: false, reason: 'No pass-on-retry evidence for 7 days' });
    expect(after.state.since.getTime()).to.equal(T0 + 7 * DAY);
    expect(after.nextChangeAt).to.equal(null);
  });

  it('ignores detections outside its branch scope and from the future', () => {
    const scoped: PassOnRetryConfig = { ...config, scope: { branchClasses: ['main'], branchPatterns: ['release/*'] } };
    expect(evaluatePassOnRetry(undefined, [detection(0, 'a', 'feature/x', 'pull_request', 1)], scoped, at(HOUR)).state.active).to.equal(false);
    expect(evaluatePassOnRetry(undefined, [detection(0, 'a', 'release/2.0', 'other')], scoped, at(HOUR)).state.active).to.equal(true);
    expect(evaluatePassOnRetry(undefined, [detection(2 * HOUR)], config, at(HOUR)).state.active).to.equal(false);
  });

  it('a fail and a pass on one commit make a detection at the later of the two', () => {
    const fail = { firstFailAt: 10, firstPassAt: null };
    const pass = { firstFailAt: null, firstPassAt: 30 };
    expect(retryDetectedAt(fail)).to.equal(null);
    expect(retryDetectedAt(mergeCommitOutcomes(fail, pass))).to.equal(30);
    expect(retryDetectedAt(mergeCommitOutcomes(mergeCommitOutcomes(fail, pass), { firstFailAt: 5, firstPassAt: 40 }))).to.equal(30);
  });
});
