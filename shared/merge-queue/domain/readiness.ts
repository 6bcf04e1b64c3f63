// Readiness (spec §3.1, merge-queue-behaviour §1.6): a pull request may be admitted when its base
// is the queue's branch (for a member of a stack: the head branch of the member below it, or the
// queue's branch once retargeted), it merges cleanly, and — in parallel mode — impacted targets
// exist for its current head.
import type { Mergeability, QueueMode, Readiness } from './model.js';

export interface ReadinessFacts {
  prBaseBranch: string;
  queueBranch: string;
  /** For a stack member, the head branch of the member below it: a base as good as the queue's branch. */
  stackBelowHeadBranch?: string | null;
  mergeability: Mergeability;
  /** The mode admission is judged in (the pending mode while a switch is in progress). */
  mode: QueueMode;
  hasImpactedTargets: boolean;
}

/** The pull request's base is one the queue accepts: its branch, or for a stack member the head branch of the member below. */
export function baseBranchMatches(f: Pick<ReadinessFacts, 'prBaseBranch' | 'queueBranch' | 'stackBelowHeadBranch'>): boolean {
  return f.prBaseBranch === f.queueBranch || (!!f.stackBelowHeadBranch && f.prBaseBranch === f.stackBelowHeadBranch);
}

export function evaluateReadiness(f: ReadinessFacts): Readiness {
  return {
    doesBaseBranchMatch: baseBranchMatches(f),
    gitHubMergeability: f.mergeability,
    requiresImpactedTargets: f.mode === 'parallel',
    hasImpactedTargets: f.hasImpactedTargets,
  };
}

export function isReady(r: Readiness): boolean {
  return r.doesBaseBranchMatch && r.gitHubMergeability === 'mergeable' && (!r.requiresImpactedTargets || r.hasImpactedTargets);
}

/**
 * Readiness judged in `mode`: only `requiresImpactedTargets` depends on the mode, so a mode
 * change can be applied at once, without asking the provider again. Null when nothing changes.
 */
export function readinessInMode(r: Readiness, mode: QueueMode): Readiness | null {
  const requires = mode === 'parallel';
  return r.requiresImpactedTargets === requires ? null : { ...r, requiresImpactedTargets: requires };
}
