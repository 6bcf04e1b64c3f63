// Quarantine: per-test overrides (always / never, with reason and audit trail) and the CLI's
// getQuarantineConfig, which tells a CI step which failures not to fail the job for.
import type { RepoRef } from '../../repo-ref.js';
import { notFound } from '../../errors.js';
import { CAS_LOST, retryCompareAndSet } from '../../compare-and-set.js';
import { isQuarantined, type QuarantineOverride } from '../domain/detection/index.js';
import type { FlakyStore } from '../store/flaky-store.js';
import { caseIdOf, type QuarantineAudit, type TestCase } from '../store/test-case-repository.js';
import type { FlakyRepo } from '../store/repo-settings-repository.js';
import type { DetectionService } from './detection-service.js';
import type { RepoResolver } from './repo-resolver.js';
import type { TestQueryService } from './test-query-service.js';

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
    const caseIds = await this.deps.queries.quarantinedCaseIds(repo);
    const prefix = `${repo.id}:`;
    return { isDisabled: false, testIds: caseIds.map((c) => c.slice(prefix.length)) };
  }

  private async test(orgId: string, orgUrlSlug: string, repoRef: RepoRef, testId: string): Promise<{ repo: FlakyRepo; test: TestCase }> {
    const { repo } = await this.deps.resolver.existing(orgId, orgUrlSlug, repoRef);
    const test =
      (await this.deps.store.tests.findById(caseIdOf(repo.id, testId))) ?? (await this.deps.store.tests.findById(caseIdOf(repo.id, testId.toLowerCase())));
    if (!test) throw notFound('test_not_found', `no test ${testId} in this repository`);
    return { repo, test };
  }

  async getOverride(orgId: string, q: { orgUrlSlug: string; repo: RepoRef; testId: string }): Promise<OverrideView> {
    const { repo, test } = await this.test(orgId, q.orgUrlSlug, q.repo, q.testId);
    return { repo, test, quarantined: isQuarantined(repo.quarantine, test.quarantine?.override ?? null, test.status.value) };
  }

  /** Sets (or with null clears) a test's override; every change is appended to its audit trail. */
  async setOverride(
    orgId: string,
    q: { orgUrlSlug: string; repo: RepoRef; testId: string; override: QuarantineOverride | null; reason: string; actor: string },
  ): Promise<OverrideView> {
    return retryCompareAndSet('the test', async () => {
      const { repo, test } = await this.test(orgId, q.orgUrlSlug, q.repo, q.testId);
      const now = this.now();
      const audit: QuarantineAudit = { at: now, actor: q.actor, from: test.quarantine?.override ?? null, to: q.override, reason: q.reason };
      const record = q.override ? { override: q.override, reason: q.reason, actor: q.actor, at: now } : null;
      const updated = await this.deps.store.tests.setQuarantine(test, record, audit);
      if (!updated) return CAS_LOST;
      return { repo, test: updated, quarantined: isQuarantined(repo.quarantine, updated.quarantine?.override ?? null, updated.status.value) };
    });
  }
}
