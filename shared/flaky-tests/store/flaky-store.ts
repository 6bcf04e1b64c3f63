// Every flaky-tests repository over one database (indexes: shared/database/ensure-indexes.ts).
import type { Database } from '../../platform/database/collection.js';
import { LEAVE_FOR_SWEEP, type EventRelay } from '../../platform/events/outbox.js';
import { FlakyRepoRepository } from './repo-settings-repository.js';
import { TestCaseRepository } from './test-case-repository.js';
import { CaseRunRepository } from './case-run-repository.js';
import { ReceivedUploadRepository } from './received-upload-repository.js';
import { UploadRepository } from './upload-repository.js';
import { HourBucketRepository } from './hour-bucket-repository.js';
import { RetryDetectionRepository } from './retry-detection-repository.js';
import { FailureClusterRepository } from './failure-cluster-repository.js';
import { BundleUploadRepository } from './bundle-upload-repository.js';
import { SecretRepository } from './secret-repository.js';

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
    repos: new FlakyRepoRepository(db),
    tests: new TestCaseRepository(db, relay),
    caseRuns: new CaseRunRepository(db),
    uploads: new UploadRepository(db),
    received: new ReceivedUploadRepository(db),
    buckets: new HourBucketRepository(db),
    detections: new RetryDetectionRepository(db),
    clusters: new FailureClusterRepository(db),
    bundleUploads: new BundleUploadRepository(db),
    secrets: new SecretRepository(db),
  };
}
