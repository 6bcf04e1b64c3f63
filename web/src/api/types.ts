// Wire shapes the dashboard reads, named for its pages: each is read off the types generated
// from the service's OpenAPI document (openapi/types.ts), so a change on the wire is a type error
// here, never a silent mismatch.
import type { AnswerOf, RequestOf } from '../../../openapi/wire';

export type QueueBody = AnswerOf<'getQueue'>;
export type EnqueuedPullRequest = QueueBody['enqueuedPullRequests'][number];
export type QueueState = QueueBody['state'];
export type QueueWarning = QueueBody['warnings'][number];
/** What the settings form and summary show of a queue. */
export type QueueSettings = Omit<QueueBody, 'enqueuedPullRequests' | 'warnings'>;
export type RepoRef = AnswerOf<'listQueues'>['queues'][number]['repo'];
/** Merge windows and freezes (docs/merge-windows.md): as stored, as written, and the forecast before the next closure. */
export type Schedule = NonNullable<QueueBody['schedule']>;
export type ScheduleInput = NonNullable<RequestOf<'updateQueue'>['schedule']>;
export type ObjectivesInput = NonNullable<RequestOf<'updateQueue'>['objectives']>;
export type MergeWindowForecast = AnswerOf<'getMergeWindowForecast'>;
export type Closure = NonNullable<MergeWindowForecast['closure']>;
export type QueueSummary = AnswerOf<'listQueues'>['queues'][number];
export type EntryState = keyof QueueSummary['counts'];

export type SubmittedPullRequest = AnswerOf<'getSubmittedPullRequest'>;
export type TimelineItem = NonNullable<SubmittedPullRequest['timeline']>[number];
export type Verdict = NonNullable<SubmittedPullRequest['verdict']>;
export type Reason = TimelineItem['reason'];

export type TestRunSummary = AnswerOf<'listTestRuns'>['testRuns'][number];
export type TestingDetails = AnswerOf<'getMergeQueueTestingDetails'>;
export type RunTestResults = NonNullable<TestingDetails['testResults']>;
export type QueueHealth = AnswerOf<'getQueueHealth'>;

export type FlakyTest = AnswerOf<'flaky-tests/get-test-details'>['test'];
export type FlakyPage = AnswerOf<'flaky-tests/list-unhealthy-tests'>['page'];
export type QuarantinedTest = AnswerOf<'flaky-tests/list-quarantined-tests'>['quarantined_tests'][number];
export type QuarantineOverride = AnswerOf<'flaky-tests/get-quarantine-override'>;
export type TestHistory = AnswerOf<'flaky-tests/get-test-history'>;
export type TokenInfo = AnswerOf<'getTokenInfo'>;
