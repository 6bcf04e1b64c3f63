// Stacks (docs/pull-requests.md#stacks): a chain of open pull requests, each based on the head
// branch of the one below, the bottom based on the queue's branch. Submitting a member queues it
// with every member below it, in order, as one unit. Resolution follows the chain down from the
// submitted pull request through the open pull requests by head branch; it refuses a chain deeper
// than MAX_STACK_DEPTH, a cycle, a member that cannot be merged (draft, fork), and a chain that
// ends at a branch that is neither the queue's nor an open pull request's.
import type { EntryStack } from './model.js';

/** The open pull requests by head branch: what resolveStack and stackBottomBranch follow a chain with. */
export function byHeadBranch<P extends StackCandidate>(open: readonly P[]): (branch: string) => P | undefined {
  const index = new Map(open.flatMap((p) => (p.headBranch ? [[p.headBranch, p] as const] : [])));
  return (branch) => index.get(branch);
}

/** Mergify's limit; deeper chains are refused rather than half-queued. */
export const MAX_STACK_DEPTH = 20;

export interface StackCandidate {
  number: number;
  /** null when the forge does not say: the queue's branch is assumed. */
  baseBranch: string | null;
  headBranch: string | null;
  draft: boolean;
  fromFork: boolean;
}

export type StackResolution<P extends StackCandidate> =
  | { ok: true; members: P[] }
  | { ok: false; code: 'stack_too_deep' | 'stack_cycle' | 'stack_base_unknown' | 'stack_member_not_mergeable'; prNumber: number; message: string };

/**
 * The members of the stack `top` heads, bottom first (just `[top]` when it is based on the queue's
 * branch). `openByHeadBranch` answers the open pull request whose head branch is the given one.
 */
export function resolveStack<P extends StackCandidate>(top: P, queueBranch: string, openByHeadBranch: (branch: string) => P | undefined): StackResolution<P> {
  const chain: P[] = [top];
  for (let member = top; (member.baseBranch ?? queueBranch) !== queueBranch;) {
    const base = member.baseBranch as string;
    const below = openByHeadBranch(base);
    if (!below) {
      return {
        ok: false,
        code: 'stack_base_unknown',
        prNumber: member.number,
        message: `pull request #${member.number} is based on ${base}, which is neither ${queueBranch} nor the head branch of an open pull request`,
      };
    }
    if (chain.some((m) => m.number === below.number)) {
      return { ok: false, code: 'stack_cycle', prNumber: below.number, message: `the stack of #${top.number} loops back to pull request #${below.number}` };
    }
    if (chain.length >= MAX_STACK_DEPTH) {
      return {
        ok: false,
        code: 'stack_too_deep',
        prNumber: top.number,
        message: `the stack of #${top.number} is deeper than ${MAX_STACK_DEPTH} pull requests; queue a lower member first`,
      };
    }
    if (below.draft || below.fromFork) {
      const why = below.draft ? 'is a draft' : 'comes from a fork';
      return {
        ok: false,
        code: 'stack_member_not_mergeable',
        prNumber: below.number,
        message: `pull request #${below.number}, below #${top.number} in its stack, ${why}`,
      };
    }
    chain.push(below);
    member = below;
  }
  return { ok: true, members: chain.reverse() };
}

/** Each member's place in the stack, bottom first; null for a lone pull request. */
export function stackPlaces(queueId: string, members: readonly StackCandidate[]): (EntryStack | null)[] {
  if (members.length < 2) return members.map(() => null);
  const id = `${queueId}:${members[0]!.number}`;
  return members.map((_, i) => ({
    id,
    position: i + 1,
    size: members.length,
    belowPr: i === 0 ? null : members[i - 1]!.number,
    belowHeadBranch: i === 0 ? null : members[i - 1]!.headBranch,
  }));
}

/**
 * The branch at the bottom of the chain `base` starts (the branch a stack's queue serves): `base`
 * itself when no open pull request heads it; at most MAX_STACK_DEPTH steps, a cycle stops the walk.
 */
export function stackBottomBranch(base: string, openByHeadBranch: (branch: string) => StackCandidate | undefined): string {
  const seen = new Set<string>();
  let branch = base;
  for (let below = openByHeadBranch(branch); below && seen.size < MAX_STACK_DEPTH && !seen.has(branch); below = openByHeadBranch(branch)) {
    seen.add(branch);
    if (below.baseBranch === null) break;
    branch = below.baseBranch;
  }
  return branch;
}
