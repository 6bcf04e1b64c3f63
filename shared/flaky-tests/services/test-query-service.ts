// The read side of the flaky-tests API: list-failing-tests, list-unhealthy-tests,
// list-quarantined-tests, get-test-details. Every list is ordered by test id ascending and paged
// with signed keyset tokens. Statuses that time alone has changed are brought up to date first.
import { quarantineFactsOf } from './quarantine-facts.js';
import type { RepoRef } from '../../platform/repo-ref.js';
import { invalid, notFound } from '../../platform/errors.js';
import {
  DAY_MS,
  HOUR_MS,
  failingWindowProblems,
  hourStart,
  isQuarantined,
  quarantineSettingOf,
  overrideInForce,
  rankFailureClusters,
  testMetrics,
  type Classification,
  type TestMetrics,
} from '../domain/detection/index.js';
import type { MostCommonFailure } from '../domain/failure-summary.js';
import type { FlakyStore } from '../store/flaky-store.js';
import type { DetectionService } from './detection-service.js';
import { paginate, type PageInfo } from './paginate.js';
import type { PageTokenCodec } from './page-token.js';
import type { RepoResolver } from './repo-resolver.js';
import { caseIdCandidates, type FlakyRepo, type TestCase } from '../domain/model.js';

export interface TestView {
  test: TestCase;
  repo: FlakyRepo;
  quarantined: boolean;
  metrics: TestMetrics;
  /** Only for failing-test and detail views. */
  mostCommonFailures: MostCommonFailure[] | null;
}

export interface QuarantinedView {
  test: TestCase;
  setting: 'ALWAYS_QUARANTINE' | 'AUTO_QUARANTINE';
  quarantinedAt: Date;
}

export interface ListResult<T> {
  items: T[];
  page: PageInfo;
}

export interface ListQuery {
  orgUrlSlug: string;
  repo: RepoRef;
  pageSize: number;
  pageToken?: string;
}

export class TestQueryService {
  private readonly now: () => Date;
  constructor(
    private readonly deps: {
      store: FlakyStore;
      resolver: RepoResolver;
      detection: DetectionService;
      tokens: PageTokenCodec;
      now?: () => Date;
    },
  ) {
    this.now = deps.now ?? (() => new Date());
  }

  private async open(orgId: string, orgUrlSlug: string | null, repo: RepoRef): Promise<{ repo: FlakyRepo; now: Date }> {
    const found = await this.deps.resolver.existing(orgId, orgUrlSlug, repo);
    return { repo: found.repo, now: this.now() };
  }

  /** Distinct tests with at least one (detection-eligible) failure in [start, end). */
  async listFailing(orgId: string, q: ListQuery & { start: Date; end: Date }): Promise<ListResult<TestView>> {
    const problems = failingWindowProblems(q.start, q.end);
    if (problems.length > 0)
      throw invalid('invalid_time_window', `the time window is invalid: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`, problems);
    const { repo, now } = await this.open(orgId, q.orgUrlSlug, q.repo);
    const scope = `failing|${orgId}|${repo.id}|${q.start.toISOString()}|${q.end.toISOString()}`;
    const position = await this.deps.tokens.decode(scope, q.pageToken);
    const ids = await this.failingCaseIds(repo.id, q.start, q.end);
    const page = await paginate(ids, position, q.pageSize, this.deps.tokens, scope);
    const items = await this.views(repo, page.ids, now, { from: q.start, to: q.end });
    return { items, page: page.info };
  }

  async listUnhealthy(orgId: string, q: ListQuery & { status: Classification }): Promise<ListResult<TestView>> {
    const { repo, now } = await this.open(orgId, q.orgUrlSlug, q.repo);
    const scope = `unhealthy|${orgId}|${repo.id}|${q.status}`;
    const position = await this.deps.tokens.decode(scope, q.pageToken);
    const ids = await this.deps.store.tests.idsWithStatus(repo.id, [q.status]);
    const page = await paginate(ids, position, q.pageSize, this.deps.tokens, scope);
    return { items: await this.views(repo, page.ids, now, null), page: page.info };
  }

  async listQuarantined(orgId: string, q: ListQuery): Promise<ListResult<QuarantinedView>> {
    const { repo, now } = await this.open(orgId, q.orgUrlSlug, q.repo);
    const scope = `quarantined|${orgId}|${repo.id}`;
    const position = await this.deps.tokens.decode(scope, q.pageToken);
    const ids = await this.quarantinedCaseIds(repo, now);
    const page = await paginate(ids, position, q.pageSize, this.deps.tokens, scope);
    const tests = await this.byIds(page.ids);
    const items = tests.map((t) => {
      const setting = quarantineSettingOf(overrideInForce(t.quarantine, now));
      // The override's creation time, else the status change that made it auto-quarantined.
      const quarantinedAt = setting === 'ALWAYS_QUARANTINE' && t.quarantine ? t.quarantine.at : t.status.timestamp;
      return { test: t, setting, quarantinedAt };
    });
    return { items, page: page.info };
  }

  async details(orgId: string, q: { orgUrlSlug: string; repo: RepoRef; testId: string }): Promise<TestView> {
    const { repo, now } = await this.open(orgId, q.orgUrlSlug, q.repo);
    const window = { from: new Date(now.getTime() - 7 * DAY_MS), to: now };
    const candidates = caseIdCandidates(repo.id, q.testId);
    const [view] = await this.views(repo, candidates, now, window);
    if (!view) throw notFound('test_not_found', `no test ${q.testId} in this repository`);
    return view;
  }

  /**
   * Ids (case ids) of the repository's tests quarantined at `now`, ascending. The indexes give the
   * candidates (overrides to always quarantine, flaky and broken tests); each is then judged by the
   * one quarantine rule, so an override whose `expires_at` passed counts as gone at once, as every
   * other read of the test says, before the flaky-refresh job clears it.
   */
  async quarantinedCaseIds(repo: FlakyRepo, now: Date): Promise<string[]> {
    if (!repo.quarantine.enabled) return [];
    const tests = this.deps.store.tests;
    const candidates = new Set(await tests.idsWithOverride(repo.id, 'always'));
    if (repo.quarantine.autoQuarantine) for (const id of await tests.idsWithStatus(repo.id, ['flaky', 'broken'])) candidates.add(id);
    const quarantined = (await this.byIds([...candidates])).filter((t) => isQuarantined(repo.quarantine, quarantineFactsOf(t, now)));
    return quarantined.map((t) => t.id).sort();
  }

  /**
   * Failing buckets of the window's hours; a bucket cut by a window edge counts when its first or
   * last failure lies inside, and only the rare bucket holding both edges is checked against runs.
   */
  private async failingCaseIds(repoId: string, start: Date, end: Date): Promise<string[]> {
    const s = start.getTime();
    const e = end.getTime();
    const hours: number[] = [];
    for (let h = hourStart(s).getTime(); h < e; h += HOUR_MS) hours.push(h);
    const found = new Set<string>();
    const unsure: { caseId: string; uploadId: string }[] = [];
    for (const b of await this.deps.store.buckets.failingIn(repoId, hours)) {
      if (found.has(b.caseId)) continue;
      const h = b.hour.getTime();
      if (h >= s && h + HOUR_MS <= e) {
        found.add(b.caseId);
        continue;
      }
      const first = b.firstFailureAt.getTime();
      const last = b.lastFailureAt.getTime();
      if ((first >= s && first < e) || (last >= s && last < e)) found.add(b.caseId);
      else if (first < s && last >= e) unsure.push({ caseId: b.caseId, uploadId: b.uploadId });
    }
    // Counters exist only for included uploads, so the upload's runs can be asked directly.
    for (const u of unsure) {
      if (!found.has(u.caseId) && (await this.deps.store.caseRuns.failedBetween(u.uploadId, u.caseId, start, end))) found.add(u.caseId);
    }
    return [...found].sort();
  }

  private async byIds(ids: readonly string[]): Promise<TestCase[]> {
    const byId = new Map((await this.deps.store.tests.findByIds(ids)).map((t) => [t.id, t]));
    return ids.map((id) => byId.get(id)).filter((t): t is TestCase => t !== undefined);
  }

  private async views(repo: FlakyRepo, ids: readonly string[], now: Date, failures: { from: Date; to: Date } | null): Promise<TestView[]> {
    const tests = await this.byIds(ids);
    if (tests.length === 0) return [];
    const found = tests.map((t) => t.id);
    const [buckets, clusters] = await Promise.all([
      this.deps.store.buckets.forCases(found, new Date(now.getTime() - 7 * DAY_MS - HOUR_MS), now),
      failures ? this.deps.store.clusters.forCases(found, new Date(Math.floor(failures.from.getTime() / DAY_MS) * DAY_MS)) : null,
    ]);
    return tests.map((test) => {
      let mostCommonFailures: MostCommonFailure[] | null = null;
      if (failures && clusters) {
        const to = failures.to.getTime();
        mostCommonFailures = rankFailureClusters((clusters.get(test.id) ?? []).filter((c) => c.day.getTime() < to));
      }
      return {
        test,
        repo,
        quarantined: isQuarantined(repo.quarantine, quarantineFactsOf(test, now)),
        metrics: testMetrics(buckets.get(test.id) ?? [], now),
        mostCommonFailures,
      };
    });
  }
}
