// The pull request comment's words for a stack member (shared/github/services/pull-request-feedback.ts):
// queued with its stack while in the queue, landed with it once merged, nothing about it after it left.
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
