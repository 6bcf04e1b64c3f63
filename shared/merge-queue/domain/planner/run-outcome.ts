// What a run's recorded status means for its entries. A timed-out run is cancelled by the
// planner but counts as a failure (merge-queue-behaviour §1.22: cancel → normal failure path).
import type { Reason, TestRun } from '../model.js';
import { BUILD_FAILURE_REASONS } from './entry-states.js';

export type RunOutcome = 'running' | 'passed' | 'failed' | 'build_failed' | 'cancelled';

export function runOutcome(run: TestRun): RunOutcome {
  switch (run.status) {
    case 'in_progress':
      return 'running';
    case 'succeeded':
      return 'passed';
    case 'failed':
      return run.conclusionReason !== null && BUILD_FAILURE_REASONS.includes(run.conclusionReason) ? 'build_failed' : 'failed';
    case 'cancelled':
      return run.conclusionReason === 'test_run_timeout' ? 'failed' : 'cancelled';
  }
}

/** The failure reason an entry gets when this (failed) run is what condemns it. */
export function failureReasonOf(run: TestRun): Reason {
  return run.conclusionReason === 'test_run_timeout' ? 'test_run_timeout' : 'test_run_required_status_failed';
}

/** Entries a build failure blames: the recorded culprits, else every tested entry. */
export function buildCulprits(run: TestRun): string[] {
  return run.culpritEntryIds && run.culpritEntryIds.length > 0 ? [...run.culpritEntryIds] : [...run.entryIds];
}

/** Base then tested entries: the changes the run's branch holds on top of its target sha. */
export function chainOf(run: TestRun): string[] {
  return [...run.baseEntryIds, ...run.entryIds];
}

export function deadlinePassed(run: TestRun, now: number): boolean {
  return run.status === 'in_progress' && run.deadlineAt !== null && run.deadlineAt.getTime() <= now;
}
