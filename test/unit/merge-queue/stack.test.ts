// Resolving a stack from the pull request submitted (domain/stack.ts): down the chain of open pull
// requests by head branch to the queue's branch; refusals name the pull request at fault.
import { expect } from 'chai';
import { MAX_STACK_DEPTH, resolveStack, stackPlaces, type StackCandidate } from '../../../shared/merge-queue/domain/stack.js';
import { evaluateReadiness } from '../../../shared/merge-queue/domain/readiness.js';
import { syncDecision } from '../../../shared/merge-queue/domain/pr-sync.js';
import { entry } from '../../../shared/merge-queue/simulation/builders.js';

const pr = (number: number, baseBranch: string | null, over: Partial<StackCandidate> = {}): StackCandidate => ({
  number,
  baseBranch,
  headBranch: `b${number}`,
  draft: false,
  fromFork: false,
  ...over,
});

function lookup(prs: StackCandidate[]) {
  const byHead = new Map(prs.map((p) => [p.headBranch!, p]));
  return (branch: string) => byHead.get(branch);
}

describe('stacks: resolution', () => {
  it('a pull request based on the queue branch is a stack of one', () => {
    const top = pr(1, 'main');
    expect(resolveStack(top, 'main', lookup([top]))).to.deep.equal({ ok: true, members: [top] });
  });

  it('follows base → head branch down to the queue branch, bottom first', () => {
    const prs = [pr(1, 'main'), pr(2, 'b1'), pr(3, 'b2')];
    const r = resolveStack(prs[2]!, 'main', lookup(prs));
    expect(r.ok && r.members.map((m) => m.number)).to.deep.equal([1, 2, 3]);
    expect(stackPlaces('q', prs)).to.deep.equal([
      { id: 'q:1', position: 1, size: 3, belowPr: null, belowHeadBranch: null },
      { id: 'q:1', position: 2, size: 3, belowPr: 1, belowHeadBranch: 'b1' },
      { id: 'q:1', position: 3, size: 3, belowPr: 2, belowHeadBranch: 'b2' },
    ]);
  });

  it('refuses a chain that ends on a branch no open pull request heads (another queue), naming the member', () => {
    const prs = [pr(1, 'develop'), pr(2, 'b1')];
    expect(resolveStack(prs[1]!, 'main', lookup(prs))).to.deep.equal({
      ok: false,
      code: 'stack_base_unknown',
      prNumber: 1,
      message: 'pull request #1 is based on develop, which is neither main nor the head branch of an open pull request',
    });
  });

  it('refuses a cycle', () => {
    const prs = [pr(1, 'b2'), pr(2, 'b1')];
    expect(resolveStack(prs[1]!, 'main', lookup(prs))).to.include({ ok: false, code: 'stack_cycle', prNumber: 2 });
  });

  it(`refuses a stack deeper than ${MAX_STACK_DEPTH}, and takes one exactly that deep`, () => {
    const deep = Array.from({ length: MAX_STACK_DEPTH + 1 }, (_, i) => pr(i + 1, i === 0 ? 'main' : `b${i}`));
    expect(resolveStack(deep.at(-1)!, 'main', lookup(deep))).to.include({ ok: false, code: 'stack_too_deep', prNumber: MAX_STACK_DEPTH + 1 });
    const r = resolveStack(deep[MAX_STACK_DEPTH - 1]!, 'main', lookup(deep));
    expect(r.ok && r.members.length).to.equal(MAX_STACK_DEPTH);
  });

  it('refuses a member below that is a draft or comes from a fork', () => {
    const prs = [pr(1, 'main', { draft: true }), pr(2, 'b1')];
    expect(resolveStack(prs[1]!, 'main', lookup(prs))).to.deep.include({
      ok: false,
      code: 'stack_member_not_mergeable',
      prNumber: 1,
      message: 'pull request #1, below #2 in its stack, is a draft',
    });
  });
});

describe('stacks: readiness and changes at the forge', () => {
  const facts = { queueBranch: 'main', mergeability: 'mergeable', mode: 'single', hasImpactedTargets: false } as const;

  it("a member's base matches when it is the head branch of the member below, or the queue's branch", () => {
    expect(evaluateReadiness({ ...facts, prBaseBranch: 'b1', stackBelowHeadBranch: 'b1' }).doesBaseBranchMatch).to.equal(true);
    expect(evaluateReadiness({ ...facts, prBaseBranch: 'main', stackBelowHeadBranch: 'b1' }).doesBaseBranchMatch).to.equal(true);
    expect(evaluateReadiness({ ...facts, prBaseBranch: 'b1', stackBelowHeadBranch: null }).doesBaseBranchMatch).to.equal(false);
    expect(evaluateReadiness({ ...facts, prBaseBranch: 'b7', stackBelowHeadBranch: 'b1' }).doesBaseBranchMatch).to.equal(false);
  });

  it("a member under test retargeted onto the queue's branch is left alone (the queue does it before merging); another base change cancels it", () => {
    const member = entry(2, { state: 'testing', prBaseBranch: 'b1', stack: { id: 'q1:1', position: 2, size: 2, belowPr: 1, belowHeadBranch: 'b1' } });
    const seen = { state: 'open', merged: false, draft: false, headSha: member.prSha } as const;
    const queue = { branch: 'main', mode: 'single', targetSha: 'h' } as const;
    expect(syncDecision(member, { ...seen, baseBranch: 'main' }, queue)).to.deep.equal({ kind: 'none' });
    expect(syncDecision({ ...member, state: 'not_ready' }, { ...seen, baseBranch: 'main' }, queue)).to.deep.equal({ kind: 'refresh_readiness' });
    expect(syncDecision(member, { ...seen, baseBranch: 'other' }, queue)).to.include({ kind: 'cancel', reason: 'pr_base_branch_changed' });
  });
});
