// CI results on a commit as GitHub reports them, in the merge queue's words: a commit status
// keeps its state; a check run's status and conclusion become one (as GitHub counts required checks).
import { STATUS_STATES, type StatusState } from '../../merge-queue/domain/model.js';

/** A check run as GitHub describes it (lower-case status and conclusion). */
export interface GitHubCheckRun {
  checkRunId: number;
  /** Null when GitHub did not say (the run is listed as a suite of its own). */
  suiteId: number | null;
  name: string;
  url: string;
  /** GitHub's status: queued, in_progress, completed (or waiting, requested, pending). */
  status: string;
  conclusion: string | null;
}

export interface CommitCheck {
  /** A status context, or a check run's name. */
  context: string;
  state: StatusState;
  targetUrl: string | null;
  description?: string | null;
  /** Present for a check run: what getMergeQueueTestingDetails lists under its check suite. */
  checkRun?: Omit<GitHubCheckRun, 'name'>;
}

/** A check run's conclusion as a status state (as GitHub counts required checks). */
export function checkRunState(status: string, conclusion: string | null): StatusState {
  if (status !== 'completed') return 'pending';
  if (conclusion === 'success' || conclusion === 'neutral' || conclusion === 'skipped') return 'success';
  if (conclusion === 'cancelled' || conclusion === 'stale') return 'error';
  return 'failure';
}

export function isStatusState(value: unknown): value is StatusState {
  return (STATUS_STATES as readonly unknown[]).includes(value);
}
