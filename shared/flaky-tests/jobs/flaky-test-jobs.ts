// The flaky-tests jobs: processing a repository's received uploads, and the periodic refresh of
// what time alone changes.
import Type from 'typebox';
import { jobSpec } from '../../platform/jobs/job-catalogue.js';

export function flakyTestJobs(intervals: { flakyRefreshSeconds: number }) {
  return {
    /** Process a repository's received uploads (all of them, oldest first); deduplicated per repository. */
    'flaky-ingest': jobSpec({
      // The upload that asked for the job is only logged.
      payload: Type.Object({ repoId: Type.String({ minLength: 1 }), uploadId: Type.String({ minLength: 1 }) }),
      // A job that dies mid-upload is run again: the upload restarts from its stored blobs.
      attempts: 5,
      backoffMs: 1000,
      // Uploads of one repository are processed one at a time (deduplication), of different ones at once.
      concurrency: 4,
      deduplicateBy: (p) => `flaky-ingest-${p.repoId}`,
    }),
    /** Periodic: statuses that change with time; uploads left waiting by a crash. */
    'flaky-refresh': jobSpec({ payload: Type.Object({}), attempts: 1, backoffMs: 0, concurrency: 1, everySeconds: intervals.flakyRefreshSeconds }),
  };
}

export type FlakyTestJobs = ReturnType<typeof flakyTestJobs>;
