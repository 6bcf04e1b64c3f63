// Readiness (spec §3.1, merge-queue-behaviour §1.6): a pull request may be admitted when its base
// is the queue's branch, it merges cleanly, and — in parallel mode — impacted targets exist for
// its current head.
import type { Mergeability, QueueMode, Readiness } from './model.js';

export interface ReadinessFacts {
  prBaseBranch: string;
  queueBranch: string;
  mergeability: Mergeability;
  /** The mode admission is judged in (the pending mode while a switch is in progress). */
  mode: QueueMode;
  hasImpactedTargets: boolean;
}

export function evaluateReadiness(f: ReadinessFacts): Readiness {
  return {
    doesBaseBranchMatch: f.prBaseBranch === f.queueBranch,
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
