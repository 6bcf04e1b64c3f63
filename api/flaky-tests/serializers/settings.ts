// Responses of this service's own flaky-tests endpoints: repository settings, quarantine
// overrides, uploads. snake_case like the compatible API.
import type { BranchScope, DetectionConfig } from '../../../shared/flaky-tests/domain/detection/config.js';
import { wireOverrideOf } from '../../../shared/flaky-tests/domain/detection/quarantine.js';
import type { RepoSettingsView } from '../../../shared/flaky-tests/services/settings-service.js';
import type { OverrideView } from '../../../shared/flaky-tests/services/quarantine-service.js';
import type { UploadResult } from '../../../shared/flaky-tests/domain/model.js';

const scope = (s: BranchScope) => ({ branch_classes: s.branchClasses, branch_patterns: s.branchPatterns });

export function serializeDetection(d: DetectionConfig) {
  return {
    stable_branches: d.stableBranches,
    merge_queue_patterns: d.mergeQueuePatterns,
    pass_on_retry: { enabled: d.passOnRetry.enabled, recovery_days: d.passOnRetry.recoveryDays, ...scope(d.passOnRetry.scope) },
    failure_rate: d.failureRate.map((m) => ({
      id: m.id,
      enabled: m.enabled,
      classification: m.classification,
      activation_threshold: m.activationThreshold,
      resolution_threshold: m.resolutionThreshold,
      window_hours: m.windowHours,
      min_sample_size: m.minSampleSize,
      stale_timeout_hours: m.staleTimeoutHours,
      ...scope(m.scope),
    })),
    failure_count: d.failureCount.map((m) => ({
      id: m.id,
      enabled: m.enabled,
      classification: m.classification,
      failure_threshold: m.failureThreshold,
      window_hours: m.windowHours,
      resolution_timeout_hours: m.resolutionTimeoutHours,
      ...scope(m.scope),
    })),
    infrastructure_failure: { enabled: d.infrastructure.enabled, threshold: d.infrastructure.threshold, min_tests: d.infrastructure.minTests },
  };
}

export function serializeSettings(v: RepoSettingsView) {
  return {
    repo: v.repo,
    known: v.known,
    quarantine: { enabled: v.quarantine.enabled, auto_quarantine: v.quarantine.autoQuarantine, release_after_clean_days: v.quarantine.releaseAfterCleanDays },
    detection: serializeDetection(v.detection),
    ticket_url_template: v.ticketUrlTemplate,
    effective_ticket_url_template: v.effectiveTicketUrlTemplate,
    version: v.version,
    updated_at: v.updatedAt ? v.updatedAt.toISOString() : null,
    history: v.history
      .slice(-20)
      .reverse()
      .map((h) => ({ at: h.at.toISOString(), actor: h.actor, change: h.change, reason: h.reason })),
  };
}

const wireOverride = wireOverrideOf;

export function serializeOverride(v: OverrideView) {
  const q = v.test.quarantine;
  return {
    test_id: v.test.testId,
    name: v.test.name,
    status: v.test.status.value,
    override: wireOverride(q?.override ?? null),
    reason: q?.reason ?? null,
    updated_at: q ? q.at.toISOString() : null,
    updated_by: q?.actor ?? null,
    expires_at: q?.expiresAt ? q.expiresAt.toISOString() : null,
    released_at: v.test.quarantineRelease ? v.test.quarantineRelease.at.toISOString() : null,
    quarantining_enabled: v.repo.quarantine.enabled,
    quarantined: v.quarantined,
    history: v.test.quarantineHistory
      .slice()
      .reverse()
      .map((h) => ({ at: h.at.toISOString(), actor: h.actor, from: wireOverride(h.from), to: wireOverride(h.to), reason: h.reason })),
  };
}

export function serializeUploadResult(r: UploadResult) {
  return {
    upload_id: r.uploadId,
    runs: r.counts.runs,
    passed: r.counts.passed,
    failed: r.counts.failed,
    skipped: r.counts.skipped,
    tests: r.counts.tests,
    excluded_from_detection: r.excluded,
    status_changes: r.statusChanges,
    files: r.files.map((f) => ({
      name: f.name,
      compressed: f.compressed,
      runs: f.runs,
      passed: f.passed,
      failed: f.failed,
      skipped: f.skipped,
      warnings: f.warnings,
      errors: f.errors,
    })),
    warnings: r.warnings,
  };
}
