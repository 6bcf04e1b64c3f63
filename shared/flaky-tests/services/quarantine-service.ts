// Quarantine: per-test overrides (always / never, with reason and audit trail) and the CLI's
// getQuarantineConfig, which tells a CI step which failures not to fail the job for.
import { quarantineFactsOf } from './quarantine-facts.js';
import { repoKey, type RepoRef } from '../../platform/repo-ref.js';
import { invalid, notFound } from '../../platform/errors.js';
import type { Actor } from '../../platform/accounts/actor.js';
import { requireRole } from '../../platform/accounts/policy.js';
import { auditActorOf, type AuditTrail } from '../../platform/audit/audit-log.js';
import { changeAuthor } from './change-author.js';
import { CAS_LOST, retryCompareAndSet } from '../../platform/compare-and-set.js';
import { isQuarantined, MAX_RELEASE_AFTER_CLEAN_DAYS, overrideInForce, type QuarantineOverride } from '../domain/detection/index.js';
import type { FlakyStore } from '../store/flaky-store.js';
import type { DetectionService } from './detection-service.js';
import type { RepoResolver } from './repo-resolver.js';
import { overrideQuarantinedEvent } from '../events/test-events.js';
import type { TestQueryService } from './test-query-service.js';
import { caseIdCandidates, type FlakyRepo, type QuarantineAudit, type TestCase } from '../domain/model.js';

/** The actor of changes the service makes by itself (expiries, releases). */
export const SYSTEM_ACTOR = 'openmq';
const DAY_MS = 86_400_000;

export interface OverrideView {
  test: TestCase;
  repo: FlakyRepo;
  quarantined: boolean;
}

export interface QuarantineConfig {
  isDisabled: boolean;
  testIds: string[];
}

export class QuarantineService {
  private readonly now: () => Date;
  constructor(
    private readonly deps: {
      store: FlakyStore;
      resolver: RepoResolver;
      detection: DetectionService;
      queries: TestQueryService;
      audit: AuditTrail;
      now?: () => Date;
    },
  ) {
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * `{isDisabled, testIds}` for the CLI: disabled when quarantining is off for the repository (or
   * nothing is known about it); otherwise the ids of every quarantined test.
   */
  async config(orgId: string, q: { orgUrlSlug: string; repo: RepoRef }): Promise<QuarantineConfig> {
    const { repo } = await this.deps.resolver.maybe(orgId, q.orgUrlSlug, q.repo);
    if (!repo || !repo.quarantine.enabled) return { isDisabled: true, testIds: [] };
    const caseIds = await this.deps.queries.quarantinedCaseIds(repo, this.now());
    const prefix = `${repo.id}:`;
    return { isDisabled: false, testIds: caseIds.map((c) => c.slice(prefix.length)) };
  }

  private async test(orgId: string, orgUrlSlug: string, repoRef: RepoRef, testId: string): Promise<{ repo: FlakyRepo; test: TestCase }> {
    const { repo } = await this.deps.resolver.existing(orgId, orgUrlSlug, repoRef);
    const test = await this.deps.store.tests.findFirst(caseIdCandidates(repo.id, testId));
    if (!test) throw notFound('test_not_found', `no test ${testId} in this repository`);
    return { repo, test };
  }

  async getOverride(orgId: string, q: { orgUrlSlug: string; repo: RepoRef; testId: string }): Promise<OverrideView> {
    const { repo, test } = await this.test(orgId, q.orgUrlSlug, q.repo, q.testId);
    return { repo, test, quarantined: isQuarantined(repo.quarantine, quarantineFactsOf(test, this.now())) };
  }

  /**
   * Sets (or with null clears) a test's override (admin); every change is appended to the test's
   * quarantine history and recorded in the audit trail.
   */
  async setOverride(
    actor: Actor,
    q: { orgUrlSlug: string; repo: RepoRef; testId: string; override: QuarantineOverride | null; reason: string; onBehalfOf?: string; expiresAt?: Date | null },
  ): Promise<OverrideView> {
    requireRole(actor, 'admin', "setting a test's quarantine override");
    const { orgId } = actor;
    const author = changeAuthor(actor, q.onBehalfOf);
    const expiresAt = q.expiresAt ?? null;
    if (expiresAt && !q.override) {
      throw invalid('invalid_expires_at', 'expires_at needs an override to end', [
        { path: '/expires_at', message: 'only with always_quarantine or never_quarantine' },
      ]);
    }
    if (expiresAt && expiresAt.getTime() <= this.now().getTime()) {
      throw invalid('invalid_expires_at', 'expires_at must be in the future', [{ path: '/expires_at', message: 'must be in the future' }]);
    }
    const view = await retryCompareAndSet('the test', async () => {
      const { repo, test } = await this.test(orgId, q.orgUrlSlug, q.repo, q.testId);
      const now = this.now();
      const audit: QuarantineAudit = { at: now, actor: author, from: test.quarantine?.override ?? null, to: q.override, reason: q.reason };
      const record = q.override ? { override: q.override, reason: q.reason, actor: author, at: now, expiresAt } : null;
      const after = { ...test, quarantine: record, quarantineHistory: [...test.quarantineHistory, audit] };
      const quarantined = isQuarantined(repo.quarantine, quarantineFactsOf(after, now));
      // Judged on the version this write replaces: a concurrent override makes this write lose and retry.
      const events = quarantined && !isQuarantined(repo.quarantine, quarantineFactsOf(test, now)) ? [overrideQuarantinedEvent(repo, after)] : [];
      const updated = await this.deps.store.tests.setQuarantine(test, record, audit, events);
      if (!updated) return CAS_LOST;
      return { repo, test: updated, quarantined };
    });
    await this.deps.audit.record({
      orgId,
      actor: auditActorOf(actor),
      action: 'quarantine.override_set',
      target: `${repoKey(q.repo)}:${q.testId}`,
      detail: {
        override: q.override,
        reason: q.reason,
        ...(q.onBehalfOf ? { onBehalfOf: q.onBehalfOf } : {}),
        ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
      },
    });
    return view;
  }

  /**
   * What time alone changes, applied by the flaky-refresh job (reads never write): overrides past
   * their `expiresAt` are cleared (the test falls back to automatic quarantine), automatically
   * quarantined tests without a failure for `releaseAfterCleanDays` days are released, and a
   * released test that failed again is quarantined again. Each change lands in the test's
   * quarantine history with the actor `openmq`.
   */
  async applyTimeRules(now: Date): Promise<{ expired: number; released: number; requarantined: number }> {
    const done = { expired: 0, released: 0, requarantined: 0 };
    for (const repo of await this.deps.store.repos.withQuarantineEnabled()) {
      for (const test of await this.deps.store.tests.withExpiredOverride(repo.id, now)) {
        const from = test.quarantine?.override ?? null;
        const audit: QuarantineAudit = {
          at: now,
          actor: SYSTEM_ACTOR,
          from,
          to: null,
          reason: `the override expired at ${test.quarantine?.expiresAt?.toISOString()}`,
        };
        if (await this.deps.store.tests.setQuarantine(test, null, audit)) done.expired++;
      }
      const days = repo.quarantine.releaseAfterCleanDays;
      if (!repo.quarantine.autoQuarantine || days <= 0) continue;
      const released = await this.deps.store.tests.withRelease(repo.id);
      const releasedIds = new Set(released.map((t) => t.id));
      const unhealthy = await this.deps.store.tests.findByIds(await this.deps.store.tests.idsWithStatus(repo.id, ['flaky', 'broken']));
      const candidates = unhealthy.filter((t) => !releasedIds.has(t.id) && overrideInForce(t.quarantine, now) === null);
      const lastFailures = await this.lastFailures(
        [...candidates, ...released].map((t) => t.id),
        now,
      );
      const cleanSince = now.getTime() - days * DAY_MS;
      for (const test of candidates) {
        const last = lastFailures.get(test.id) ?? null;
        if (last && last.getTime() > cleanSince) continue;
        const audit: QuarantineAudit = {
          at: now,
          actor: SYSTEM_ACTOR,
          from: null,
          to: null,
          reason: `released from automatic quarantine after ${days} days without a failure`,
        };
        if (await this.deps.store.tests.setRelease(test, { at: now, cleanDays: days, lastFailureAt: last }, audit)) done.released++;
      }
      for (const test of released) {
        const last = lastFailures.get(test.id) ?? null;
        const before = test.quarantineRelease?.lastFailureAt ?? null;
        if (!last || (before && last.getTime() <= before.getTime())) continue;
        const audit: QuarantineAudit = {
          at: now,
          actor: SYSTEM_ACTOR,
          from: null,
          to: null,
          reason: `failed again at ${last.toISOString()} after its release: quarantined automatically again`,
        };
        if (await this.deps.store.tests.setRelease(test, null, audit)) done.requarantined++;
      }
    }
    return done;
  }

  /** Each test's latest failure within the longest release window (absent: none). */
  private async lastFailures(caseIds: readonly string[], now: Date): Promise<Map<string, Date>> {
    const out = new Map<string, Date>();
    if (caseIds.length === 0) return out;
    const buckets = await this.deps.store.buckets.forCases(caseIds, new Date(now.getTime() - MAX_RELEASE_AFTER_CLEAN_DAYS * DAY_MS), now);
    for (const [caseId, list] of buckets) {
      for (const b of list) {
        if (b.failed > 0 && b.lastFailureAt && b.lastFailureAt.getTime() > (out.get(caseId)?.getTime() ?? -Infinity)) out.set(caseId, b.lastFailureAt);
      }
    }
    return out;
  }
}
