// Infrastructure-failure protection (notes §1.3): when more than a configured share of an upload's
// tests fail, the cause is almost always the environment (a database down, a runner out of disk),
// not the tests. Such an upload is stored but kept out of detection and failure rates.
import type { InfrastructureProtectionConfig } from './config.js';

export interface UploadOutcomeCounts {
  /** Distinct tests with at least one passed or failed run. */
  testsRun: number;
  /** Distinct tests whose last attempt failed (a failure fixed by a retry is not an outage). */
  testsFailed: number;
}

export function isInfrastructureFailure(counts: UploadOutcomeCounts, config: InfrastructureProtectionConfig): boolean {
  if (!config.enabled || counts.testsRun === 0 || counts.testsRun < config.minTests) return false;
  return counts.testsFailed / counts.testsRun > config.threshold;
}
