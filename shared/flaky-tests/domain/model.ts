// The flaky-tests side's entities: repositories with their settings, tests with their status and
// quarantine, uploads as they are received and processed, and the one run of a test a report
// gives. Pure: the store persists them, services change them through it, serializers show them.
import type { ErrorDetail } from '../../platform/errors.js';
import type { RepoRef } from '../../platform/repo-ref.js';
import type { BranchClass } from './branch-class.js';
import type { DetectionConfig } from './detection/config.js';
import type { QuarantineOverride, QuarantineSettings } from './detection/quarantine.js';
import type { MonitorState, StatusChange, TestStatus } from './detection/types.js';

// ── A test run as a report gives it ──

/** How one run of a test ended. */
export type RunOutcome = 'passed' | 'failed' | 'skipped';

/** What detection reads of one reported run (a JUnit run is one: formats/junit/types.ts). */
export interface ReportedRun {
  name: string;
  classname: string | null;
  file: string | null;
  fileHint: string | null;
  parent: string;
  idAttribute: string | null;
  outcome: RunOutcome;
  durationMs: number | null;
  startedAt: Date | null;
  /** What the failure said (message, type, body, stack trace); null when it said nothing. */
  detail: { message: string | null; type: string | null; text: string | null; stackTrace: string | null } | null;
}

// ── Repositories ──

export interface SettingsAudit {
  at: Date;
  actor: string;
  change: string;
  reason: string | null;
}

export interface FlakyRepo {
  id: string;
  orgId: string;
  repo: RepoRef;
  quarantine: QuarantineSettings;
  detection: DetectionConfig;
  /** Overrides FLAKY_TICKET_URL_TEMPLATE for this repository. */
  ticketUrlTemplate: string | null;
  createdAt: Date;
  updatedAt: Date;
  version: number;
  history: SettingsAudit[];
  /**
   * No test of the repository needs a time-driven re-evaluation before this moment (a lower
   * bound of the tests' `reevaluateAt`; NEVER_DUE when none does), so reads skip the search.
   */
  dueAt: Date;
}

// ── Tests ──

/** A test case's id: its repository and its test id (one test per repository). */
export const caseIdOf = (repoId: string, testId: string) => `${repoId}:${testId}`;

/**
 * The case ids a test id given by a caller may name, in the order to try them: as given (ids a
 * reporter supplied are stored verbatim), then lower-cased (as the identity function makes them).
 */
export const caseIdCandidates = (repoId: string, testId: string): string[] => [...new Set([testId, testId.toLowerCase()])].map((id) => caseIdOf(repoId, id));

export interface QuarantineRecord {
  override: QuarantineOverride;
  reason: string;
  actor: string;
  at: Date;
  /** After it the override no longer counts and the flaky-refresh job clears it; null: until changed. */
  expiresAt?: Date | null;
}

/** An automatic quarantine released after clean days; cleared when the test fails again. */
export interface QuarantineRelease {
  at: Date;
  /** The clean days that released it (the repository's setting then). */
  cleanDays: number;
  /** Its last failure when released: a later one quarantines it again. */
  lastFailureAt: Date | null;
}

export interface QuarantineAudit {
  at: Date;
  actor: string;
  from: QuarantineOverride | null;
  to: QuarantineOverride | null;
  reason: string;
}

export interface TicketLink {
  externalId: string;
  url: string;
  linkedAt: Date;
  actor: string;
}

/**
 * A test, as its repository stores it. Its nested values may be the stored ones themselves (reads are not copied),
 * hence read-only: a change is a write through this repository, never an edit of what it answered.
 */
export interface TestCase {
  /** `<repoId>:<testId>`. */
  id: string;
  orgId: string;
  repoId: string;
  testId: string;
  name: string;
  classname: string | null;
  parent: string | null;
  file: string | null;
  /** Location used for ownership and display when `file` is absent (not part of identity). */
  fileHint: string | null;
  variant: string;
  codeowners: readonly string[];
  createdAt: Date;
  lastRunAt: Date;
  status: Readonly<TestStatus>;
  monitors: Readonly<Record<string, Readonly<MonitorState>>>;
  reevaluateAt: Date | null;
  statusHistory: readonly Readonly<StatusChange>[];
  quarantine: Readonly<QuarantineRecord> | null;
  /** Absent on tests stored before releases existed. */
  quarantineRelease?: Readonly<QuarantineRelease> | null;
  quarantineHistory: readonly Readonly<QuarantineAudit>[];
  ticket: Readonly<TicketLink> | null;
  version: number;
  /**
   * The newest failed run or pass-on-retry detection ingest knows of (null: none within the
   * lookback window); absent on tests stored before it existed, which are evaluated until an
   * evaluation records it. A test without recent evidence may skip evaluation (detection/quiet.ts).
   */
  lastEvidenceAt?: Date | null;
}

// ── Uploads ──

/** What an upload says about itself, whichever way it arrived (native `meta` part or the CLI bundle's meta.json). */
export interface UploadMeta {
  repo: RepoRef;
  orgUrlSlug: string;
  /** Lower-case hex commit sha. */
  sha: string;
  branch: string;
  prNumber: number | null;
  /** Upload variant ("" when none), part of every test id. */
  variant: string;
  jobName: string | null;
  jobUrl: string | null;
  /** CI re-run attempt (GITHUB_RUN_ATTEMPT…), for the record. */
  ciAttempt: number | null;
  /** When the CI step started, used when a report's own timestamps are implausible. */
  startedAt: Date | null;
  /** GitLab `CI_MERGE_REQUEST_EVENT_TYPE` (merge trains are merge-queue runs). */
  gitlabMergeRequestEventType?: string | null;
}

/** An upload's counts: runs by outcome and distinct tests, as the accumulator totals them. */
export interface UploadCounts {
  runs: number;
  passed: number;
  failed: number;
  skipped: number;
  /** Distinct tests. */
  tests: number;
  /** Distinct tests whose last attempt failed. */
  testsFailed: number;
}

export interface UploadIssue {
  level: 'error' | 'warning';
  code: string;
  message: string;
  line?: number;
}

export interface UploadFileSummary {
  name: string;
  compressed: boolean;
  runs: number;
  passed: number;
  failed: number;
  skipped: number;
  warnings: UploadIssue[];
  errors: UploadIssue[];
}

export interface Upload {
  id: string;
  orgId: string;
  repoId: string;
  source: 'native' | 'bundle';
  sha: string;
  branch: string;
  branchClass: BranchClass;
  prNumber: number | null;
  variant: string;
  jobName: string | null;
  jobUrl: string | null;
  ciAttempt: number | null;
  /** The merge-queue test run whose test branch head is `sha` (null: none). */
  testRunId: string | null;
  /** Tree of `sha` when the upload is linked to a test run (re-tests share it). */
  tree: string | null;
  receivedAt: Date;
  state: 'receiving' | 'complete' | 'failed';
  counts: UploadCounts;
  /** Excluded from detection and rates by infrastructure-failure protection. */
  excluded: boolean;
  files: UploadFileSummary[];
  warnings: UploadIssue[];
  expiresAt: Date;
}

/** What an upload's processing answers (the native upload's 200, the status endpoint). */
export interface UploadResult {
  uploadId: string;
  repoId: string;
  counts: UploadCounts;
  /** Excluded from detection and rates by infrastructure-failure protection. */
  excluded: boolean;
  files: UploadFileSummary[];
  warnings: UploadIssue[];
  /** Tests whose status changed because of this upload. */
  statusChanges: number;
}

export type BundleUploadState = 'pending' | 'receiving' | 'complete' | 'failed';

export interface BundleUpload {
  id: string;
  orgId: string;
  orgSlug: string;
  repo: RepoRef;
  clientVersion: string | null;
  state: BundleUploadState;
  createdAt: Date;
  /** The URL stops working at this time; the record is removed then too. */
  expiresAt: Date;
  uploadId: string | null;
  error: string | null;
}

export type ReceivedUploadState = 'queued' | 'processing' | 'complete' | 'failed';

/** What arrived: blob i is report i (native), or blob 0 is the bundle. */
export type ReceivedInput =
  { source: 'native'; meta: UploadMeta; reports: string[]; codeowners: string | null } | { source: 'bundle'; bundleUploadId: string; repo: RepoRef };

/** A refusal, kept as the API answers it. */
export interface UploadRefusal {
  kind: 'invalid' | 'too_large' | 'not_found';
  code: string;
  message: string;
  details: ErrorDetail[];
}

export type UploadOutcome = { ok: true; result: UploadResult } | { ok: false; refusal: UploadRefusal };

export interface ReceivedUpload {
  /** The upload's id (also of its stored upload and runs). */
  id: string;
  orgId: string;
  orgSlug: string;
  repoId: string;
  receivedAt: Date;
  state: ReceivedUploadState;
  /** Times the work started; a job that died mid-way leaves `processing` and one more attempt. */
  attempts: number;
  input: ReceivedInput;
  outcome: UploadOutcome | null;
  expiresAt: Date;
}
