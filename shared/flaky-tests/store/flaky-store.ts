// Every flaky-tests repository, as the services see them (interfaces), and createFlakyStore, which
// builds the database's over one database (indexes: shared/platform/database/ensure-indexes.ts).
import type { Database } from '../../platform/database/collection.js';
import { LEAVE_FOR_SWEEP, type EventRelay } from '../../platform/events/outbox.js';
import { DbFlakyRepoRepository, type FlakyRepoRepository } from './repo-settings-repository.js';
import { DbTestCaseRepository, type TestCaseRepository } from './test-case-repository.js';
import { DbCaseRunRepository, type CaseRunRepository } from './case-run-repository.js';
import { DbReceivedUploadRepository, type ReceivedUploadRepository } from './received-upload-repository.js';
import { DbUploadRepository, type UploadRepository } from './upload-repository.js';
import { DbHourBucketRepository, type HourBucketRepository } from './hour-bucket-repository.js';
import { DbRetryDetectionRepository, type RetryDetectionRepository } from './retry-detection-repository.js';
import { DbFailureClusterRepository, type FailureClusterRepository } from './failure-cluster-repository.js';
import { DbBundleUploadRepository, type BundleUploadRepository } from './bundle-upload-repository.js';
import { DbSecretRepository, type SecretRepository } from './secret-repository.js';

export interface FlakyStore {
  repos: FlakyRepoRepository;
  tests: TestCaseRepository;
  caseRuns: CaseRunRepository;
  uploads: UploadRepository;
  received: ReceivedUploadRepository;
  buckets: HourBucketRepository;
  detections: RetryDetectionRepository;
  clusters: FailureClusterRepository;
  bundleUploads: BundleUploadRepository;
  secrets: SecretRepository;
}

/** `relay` moves the events tests write with their changes on to delivery (default: they wait for the sweep). */
export function createFlakyStore(db: Database, relay: EventRelay = LEAVE_FOR_SWEEP): FlakyStore {
  return {
    repos: new DbFlakyRepoRepository(db),
    tests: new DbTestCaseRepository(db, relay),
    caseRuns: new DbCaseRunRepository(db),
    uploads: new DbUploadRepository(db),
    received: new DbReceivedUploadRepository(db),
    buckets: new DbHourBucketRepository(db),
    detections: new DbRetryDetectionRepository(db),
    clusters: new DbFailureClusterRepository(db),
    bundleUploads: new DbBundleUploadRepository(db),
    secrets: new DbSecretRepository(db),
  };
}
