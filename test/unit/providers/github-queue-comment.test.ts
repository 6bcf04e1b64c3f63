// The pull request comment's words (shared/github/services/pull-request-feedback.ts) for a stack
// member — queued with its stack while in the queue, landed with it once merged, nothing about it
// after it left — and for a failure, the verdict with its evidence.
import { expect } from 'chai';
import { queueCommentOf } from '../../../shared/github/services/pull-request-feedback.js';
import { DEFAULT_QUEUE_SETTINGS, type Queue } from '../../../shared/merge-queue/domain/model.js';
import { entry } from '../../../shared/merge-queue/simulation/builders.js';

const queue = { ...DEFAULT_QUEUE_SETTINGS, branch: 'main' } as Queue;
const member = (state: 'testing' | 'merged' | 'failed') =>
  entry(42, {
    state,
    lastReason: state === 'failed' ? 'stack_member_removed' : 'test_run_started',
    stack: { id: 'q1:41', position: 2, size: 3, belowPr: 41, belowHeadBranch: 'b41' },
  });

describe('GitHub queue comment of a stack member', () => {
  it('says it was queued with its stack, and where', () => {
    expect(queueCommentOf(member('testing'), queue)).to.include('Queued as member 2 of 3 of a stack, on #41: the stack is tested once and lands in order.');
  });

  it('says it landed with its stack once merged', () => {
    expect(queueCommentOf(member('merged'), queue)).to.include('Landed in order with its stack, as member 2 of 3 of a stack, on #41.');
  });

  it('says nothing of the stack once it left the queue; the reason says why', () => {
    const body = queueCommentOf(member('failed'), queue);
    expect(body).not.to.match(/of a stack/);
    expect(body).to.include('reason `stack_member_removed`');
  });

  it('a lone pull request has no stack line', () => {
    expect(queueCommentOf(entry(7, { state: 'testing' }), queue)).not.to.match(/stack/);
  });
});

describe('GitHub queue comment of a failed pull request', () => {
  const tests = ['a', 'b', 'c', 'd', 'e', 'f'].map((name, i) => ({
    id: `t${i}`,
    name,
    knownFlaky: i === 1,
    quarantined: i === 2,
    onTarget: i === 0 ? ('passed' as const) : null,
    onHead: i === 0 ? ('failed' as const) : null,
  }));
  const failed = entry(7, { state: 'failed', lastReason: 'test_run_required_status_failed' });

  it('gives the verdict, the rule, the run and at most five failed tests with their evidence', () => {
    const body = queueCommentOf(failed, queue, {
      kind: 'yours',
      rule: 'passes_on_target',
      summary: 'a failed here and passed on main at 0123456789ab',
      testRunId: 'run-1',
      tests,
    });
    expect(body).to.include(
      '**Was it this pull request’s fault?** Verdict: this pull request’s own failure — a failed here and passed on main at 0123456789ab (rule `passes_on_target`, test run run-1).',
    );
    expect(body).to.include('- `a`: not known flaky; on `main` without this change: passed; on this pull request’s head: failed');
    expect(body).to.include('- `b`: known flaky;');
    expect(body).to.include('- `c`: quarantined;');
    expect(body).to.include('- …and 1 more');
    expect(body).not.to.include('`f`');
  });

  it('says what would decide an unknown verdict; without a verdict, it has no verdict line', () => {
    const body = queueCommentOf(failed, queue, {
      kind: 'unknown',
      rule: 'no_evidence',
      summary: 's',
      missing: 'results of main',
      testRunId: 'run-1',
      tests: [],
    });
    expect(body).to.include('Verdict: not decided — s (rule `no_evidence`, test run run-1).\nWhat would decide it: results of main.');
    expect(queueCommentOf(failed, queue)).not.to.include('Verdict');
  });

  it('names the pull request an interaction verdict says it fails with', () => {
    const body = queueCommentOf(failed, queue, {
      kind: 'interaction',
      rule: 'fails_only_together',
      summary: 'it passes alone on main at 0123456789ab (test run alone-1) and fails only together with #6, a pull request of its batch',
      interaction: { withPrNumber: 6, withEntryId: 'e6', aloneRunId: 'alone-1' },
      testRunId: 'run-2',
      tests: [],
    });
    expect(body).to.include(
      'Verdict: not its fault alone — it fails only together with another pull request — it passes alone on main at 0123456789ab (test run alone-1) and fails only together with #6, a pull request of its batch (rule `fails_only_together`, test run run-2).',
    );
  });
});
