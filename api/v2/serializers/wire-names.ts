// The engine's names (v1's snake_case) as the v2 contract spells them (camelCase).
import type { EntryState, Mergeability, QueueMode, QueueState, TestRunStatus } from '../../../shared/merge-queue/domain/model.js';
import type { components } from '../../../openapi/v2/types.js';

type S = components['schemas'];

export const ENTRY_STATE_V2: Readonly<Record<EntryState, S['QueueEntryState']>> = {
  not_ready: 'notReady',
  pending: 'pending',
  testing: 'testing',
  tests_passed: 'testsPassed',
  pending_failure: 'pendingFailure',
  merged: 'merged',
  failed: 'failed',
  cancelled: 'cancelled',
};

export const ENTRY_STATE_OF_V2 = Object.fromEntries(Object.entries(ENTRY_STATE_V2).map(([v1, v2]) => [v2, v1])) as Readonly<
  Record<S['QueueEntryState'], EntryState>
>;

export const QUEUE_STATE_V2: Readonly<Record<QueueState, S['MergeQueueState']>> = {
  running: 'running',
  paused: 'paused',
  draining: 'draining',
  switching_modes: 'switchingModes',
};

export const MODE_V2: Readonly<Record<QueueMode, S['MergeQueueMode']>> = { single: 'queue', parallel: 'graph' };
export const MODE_OF_V2: Readonly<Record<S['MergeQueueMode'], QueueMode>> = { queue: 'single', graph: 'parallel' };

export const RUN_STATUS_V2: Readonly<Record<TestRunStatus, S['VerificationRunStatus']>> = {
  in_progress: 'inProgress',
  succeeded: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
};
export const RUN_STATUS_OF_V2 = Object.fromEntries(Object.entries(RUN_STATUS_V2).map(([v1, v2]) => [v2, v1])) as Readonly<
  Record<S['VerificationRunStatus'], TestRunStatus>
>;

export const MERGEABILITY_V2: Readonly<Record<Mergeability, S['Mergeability']>> = {
  unspecified: 'unspecified',
  in_progress: 'inProgress',
  mergeable: 'mergeable',
  not_mergeable: 'notMergeable',
};

/** `snake_case` → `camelCase`. */
export const camel = (snake: string): string => snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
/** `camelCase` → `snake_case`. */
export const snake = (camelCase: string): string => camelCase.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
