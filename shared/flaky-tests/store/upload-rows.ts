// The rows ingest writes for one upload, before the repositories pack them into blocks: its runs
// (case-run-repository.ts) and its tests' hour counters (hour-bucket-repository.ts), with what
// they share of the upload.
import type { BranchClass } from '../domain/branch-class.js';
import type { AccumulatedRun, HourTally } from '../domain/upload-accumulator.js';

/** What every run of one upload shares. */
export interface CaseRunUpload {
  orgId: string;
  repoId: string;
  uploadId: string;
  sha: string;
  branch: string;
  branchClass: BranchClass;
  prNumber: number | null;
  expiresAt: Date;
}

/** One run of an upload, as the accumulator recorded it, with its position and its test case. */
export type CaseRunRow = Omit<AccumulatedRun, 'testId'> & {
  /** 0-based position of the run in its upload. */
  seq: number;
  caseId: string;
};

/** What every counter of one upload shares. */
export interface BucketUpload {
  repoId: string;
  uploadId: string;
  branch: string;
  branchClass: BranchClass;
  /** The upload's pull request: a failing counter lists it in `failedPrs`. */
  prNumber: number | null;
  /** Counters expire this long after their hour. */
  retentionMs: number;
}

/** One test's counters for one clock hour of the upload (the accumulator's tally; times in epoch milliseconds). */
export type BucketRow = HourTally & { caseId: string };
