// The repositories the ingest use case works with: what it reads and writes, by name.
import type { BundleUploadRepository } from '../store/bundle-upload-repository.js';
import type { CaseRunRepository } from '../store/case-run-repository.js';
import type { FailureClusterRepository } from '../store/failure-cluster-repository.js';
import type { HourBucketRepository } from '../store/hour-bucket-repository.js';
import type { ReceivedUploadRepository } from '../store/received-upload-repository.js';
import type { FlakyRepoRepository } from '../store/repo-settings-repository.js';
import type { RetryDetectionRepository } from '../store/retry-detection-repository.js';
import type { TestCaseRepository } from '../store/test-case-repository.js';
import type { UploadRepository } from '../store/upload-repository.js';

export interface IngestRepositories {
  repos: Pick<FlakyRepoRepository, 'ensure' | 'findById'>;
  tests: Pick<TestCaseRepository, 'findByIds' | 'insertNew' | 'refreshSeen'>;
  caseRuns: Pick<CaseRunRepository, 'insertBatch' | 'deleteByUpload'>;
  uploads: Pick<UploadRepository, 'insert' | 'finish' | 'includedForRetry' | 'deleteUnfinished'>;
  buckets: Pick<HourBucketRepository, 'insert' | 'outcomesIn' | 'deleteByUpload'>;
  clusters: Pick<FailureClusterRepository, 'insert' | 'deleteByUpload'>;
  detections: Pick<RetryDetectionRepository, 'record'>;
  received: Pick<ReceivedUploadRepository, 'insert' | 'findById' | 'takeNext' | 'finish' | 'repositoriesWaitingSince'>;
  bundleUploads: Pick<BundleUploadRepository, 'finish'>;
}
