import { expect } from 'chai';
import { syncDecision } from '../../../shared/merge-queue/domain/pr-sync.js';
import type { Entry, EntryState } from '../../../shared/merge-queue/domain/model.js';
import { makeEntry } from '../../../scripts/lib/entries.js';

function entry(state: EntryState, over: Partial<Entry> = {}): Entry {
  return makeEntry({
    orgId: 'o',
    queueId: 'q',
    prSha: 'aaa',
    state,
    readinessBasis: { targetSha: 't1', headSha: 'aaa', mode: 'single' },
    ...over,
  });
}
const open = { state: 'open' as const, merged: false, draft: false, headSha: 'aaa', baseBranch: 'main' };
const queue = { branch: 'main', mode: 'single' as const, targetSha: 't1' };

describe('pull request sync decisions', () => {
  it('cancels a queued entry whose pull request was closed or deleted (pr_closed)', () => {
    expect(syncDecision(entry('pending'), { ...open, state: 'closed' }, queue)).to.include({ kind: 'cancel', reason: 'pr_closed' });
    expect(syncDecision(entry('testing'), null, queue)).to.include({ kind: 'cancel', reason: 'pr_closed' });
  });

  it('cancels an entry in any active state when its head moved (pr_pushed_to)', () => {
    for (const s of ['not_ready', 'pending', 'testing', 'tests_passed', 'pending_failure'] as const) {
      expect(syncDecision(entry(s), { ...open, headSha: 'bbb' }, queue), s).to.include({ kind: 'cancel', reason: 'pr_pushed_to' });
    }
  });

  it('sends a stack member whose head moved back to not_ready on its new head instead of cancelling it (pr_pushed_to)', () => {
    const stack = { id: 's1', position: 2, size: 3, belowPr: 1, belowHeadBranch: 'layer-1' };
    for (const s of ['not_ready', 'pending', 'testing', 'tests_passed', 'pending_failure'] as const) {
      expect(syncDecision(entry(s, { stack, prBaseBranch: 'layer-1' }), { ...open, baseBranch: 'layer-1', headSha: 'bbb' }, queue), s).to.include({
        kind: 'restart_stack_member',
        reason: 'pr_pushed_to',
        headSha: 'bbb',
      });
    }
    // Closing a stack member still takes it out.
    expect(syncDecision(entry('testing', { stack }), { ...open, state: 'closed', headSha: 'bbb' }, queue)).to.include({ kind: 'cancel', reason: 'pr_closed' });
  });

  it('records a pull request merged outside the queue, but not one the queue may be merging', () => {
    const merged = { ...open, state: 'closed' as const, merged: true };
    expect(syncDecision(entry('pending'), merged, queue)).to.include({ kind: 'merged_outside_queue' });
    expect(syncDecision(entry('testing'), merged, queue)).to.include({ kind: 'merged_outside_queue' });
    expect(syncDecision(entry('tests_passed'), merged, queue)).to.deep.equal({ kind: 'none' });
  });

  it('cancels a pull request converted to a draft', () => {
    expect(syncDecision(entry('pending'), { ...open, draft: true }, queue)).to.include({ kind: 'cancel', reason: 'pr_converted_to_draft' });
  });

  it('re-evaluates readiness before testing when the base branch changed, cancels after', () => {
    expect(syncDecision(entry('pending'), { ...open, baseBranch: 'develop' }, queue)).to.deep.equal({ kind: 'refresh_readiness' });
    expect(syncDecision(entry('testing'), { ...open, baseBranch: 'develop' }, queue)).to.include({ kind: 'cancel', reason: 'pr_base_branch_changed' });
  });

  it('re-evaluates readiness when the target head or the mode moved, and only before testing', () => {
    expect(syncDecision(entry('not_ready'), open, { ...queue, targetSha: 't2' })).to.deep.equal({ kind: 'refresh_readiness' });
    expect(syncDecision(entry('pending'), open, { ...queue, mode: 'parallel' })).to.deep.equal({ kind: 'refresh_readiness' });
    expect(syncDecision(entry('testing'), open, { ...queue, targetSha: 't2' })).to.deep.equal({ kind: 'none' });
    expect(syncDecision(entry('pending'), open, queue)).to.deep.equal({ kind: 'none' });
  });
});
