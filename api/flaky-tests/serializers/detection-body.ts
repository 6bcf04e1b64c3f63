// The `detection` object of update-repo-settings (snake_case, with documented defaults for
// omitted fields) → the domain's DetectionPatch.
import {
  EVERY_BRANCH,
  MONITOR_DEFAULTS,
  type BranchScope,
  type FailureCountMonitorConfig,
  type FailureRateMonitorConfig,
} from '../../../shared/flaky-tests/domain/detection/config.js';
import type { DetectionPatch } from '../../../shared/flaky-tests/services/settings-service.js';
import type { DetectionBody, ScopeBody } from '../schemas/settings-schemas.js';

/** A monitor given neither branch classes nor patterns applies to every branch. */
function scopeOf(body: ScopeBody, fallback: BranchScope): BranchScope {
  if (body.branch_classes === undefined && body.branch_patterns === undefined) {
    return { branchClasses: [...fallback.branchClasses], branchPatterns: [...fallback.branchPatterns] };
  }
  return { branchClasses: body.branch_classes ?? [], branchPatterns: body.branch_patterns ?? [] };
}

export function toDetectionPatch(d: DetectionBody): DetectionPatch {
  const patch: DetectionPatch = {};
  if (d.stable_branches) patch.stableBranches = d.stable_branches;
  if (d.merge_queue_patterns) patch.mergeQueuePatterns = d.merge_queue_patterns;
  if (d.pass_on_retry) {
    patch.passOnRetry = {
      enabled: d.pass_on_retry.enabled,
      recoveryDays: d.pass_on_retry.recovery_days ?? MONITOR_DEFAULTS.recoveryDays,
      scope: scopeOf(d.pass_on_retry, EVERY_BRANCH),
    };
  }
  if (d.failure_rate) {
    patch.failureRate = d.failure_rate.map((m): FailureRateMonitorConfig => ({
      id: m.id,
      enabled: m.enabled ?? true,
      classification: m.classification,
      activationThreshold: m.activation_threshold,
      resolutionThreshold: m.resolution_threshold ?? m.activation_threshold,
      windowHours: m.window_hours,
      minSampleSize: m.min_sample_size ?? MONITOR_DEFAULTS.minSampleSize,
      staleTimeoutHours: m.stale_timeout_hours === undefined ? null : m.stale_timeout_hours,
      scope: scopeOf(m, EVERY_BRANCH),
    }));
  }
  if (d.failure_count) {
    patch.failureCount = d.failure_count.map((m): FailureCountMonitorConfig => ({
      id: m.id,
      enabled: m.enabled ?? true,
      classification: m.classification,
      failureThreshold: m.failure_threshold ?? MONITOR_DEFAULTS.failureThreshold,
      windowHours: m.window_hours,
      resolutionTimeoutHours: m.resolution_timeout_hours ?? m.window_hours,
      scope: scopeOf(m, EVERY_BRANCH),
    }));
  }
  if (d.infrastructure_failure) {
    patch.infrastructure = {
      enabled: d.infrastructure_failure.enabled,
      threshold: d.infrastructure_failure.threshold ?? MONITOR_DEFAULTS.infrastructure.threshold,
      minTests: d.infrastructure_failure.min_tests ?? MONITOR_DEFAULTS.infrastructure.minTests,
    };
  }
  return patch;
}
