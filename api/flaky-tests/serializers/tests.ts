// Flaky-tests API responses, field for field as the OpenAPI document (/flaky-tests/*) has them:
// `status.value` lower case, the quarantined list's `status` upper case, page tokens as strings.
import type { PageInfo } from '../../../shared/flaky-tests/services/paginate.js';
import type { QuarantinedView, TestView } from '../../../shared/flaky-tests/services/test-query-service.js';
import type { RepoRef } from '../../../shared/platform/repo-ref.js';
import type { MostCommonFailure } from '../../../shared/flaky-tests/domain/failure-summary.js';
import type { TestCase } from '../../../shared/flaky-tests/domain/model.js';

export interface WirePage {
  total_rows: number;
  total_pages: number;
  next_page_token: string;
  prev_page_token: string;
  last_page_token: string;
  page_index: number;
}

export function serializePage(p: PageInfo): WirePage {
  return {
    total_rows: p.totalRows,
    total_pages: p.totalPages,
    next_page_token: p.nextPageToken,
    prev_page_token: p.prevPageToken,
    last_page_token: p.lastPageToken,
    page_index: p.pageIndex,
  };
}

export interface LinkContext {
  /** Public base URL of this service (PUBLIC_URL, else the request's origin). */
  baseUrl: string;
  orgSlug: string;
}

/** The forge's page of the repository. */
export function repositoryUrl(repo: RepoRef): string {
  return `https://${repo.host}/${repo.owner.split('/').map(encodeURIComponent).join('/')}/${encodeURIComponent(repo.name)}`;
}

/** The test's page, in the hosted product's URL layout (`/<org>/flaky-tests/test/<id>?repo=owner/name`). */
export function testUrl(links: LinkContext, repo: RepoRef, testId: string): string {
  const base = links.baseUrl.replace(/\/+$/, '');
  // The hosted product has one forge; this service names any other host so the page can find the repository.
  const host = repo.host === 'github.com' ? '' : `&host=${encodeURIComponent(repo.host)}`;
  return `${base}/${encodeURIComponent(links.orgSlug)}/flaky-tests/test/${encodeURIComponent(testId)}?repo=${encodeURIComponent(`${repo.owner}/${repo.name}`)}${host}`;
}

export interface WireTest {
  id: string;
  repository: { html_url: string };
  html_url: string;
  name: string;
  variant: string;
  status: { value: string; reason: string; timestamp: string };
  file_path?: string;
  parent?: string;
  classname?: string;
  codeowners: string[];
  pull_requests_impacted_last_7d: number;
  quarantined: boolean;
  ticket?: { html_url: string };
  most_common_failures?: MostCommonFailure[];
  failure_rate_last_7d?: number;
  failure_rate_last_24h?: number;
}

function identity(t: TestCase): Pick<WireTest, 'file_path' | 'parent' | 'classname'> {
  const out: Pick<WireTest, 'file_path' | 'parent' | 'classname'> = {};
  const file = t.file ?? t.fileHint;
  if (file) out.file_path = file;
  if (t.parent) out.parent = t.parent;
  if (t.classname) out.classname = t.classname;
  return out;
}

/** An unhealthy-test item; with `failures`, a failing-test / details item. */
export function serializeTest(view: TestView, links: LinkContext, failures: boolean): WireTest {
  const t = view.test;
  const out: WireTest = {
    id: t.testId,
    repository: { html_url: repositoryUrl(view.repo.repo) },
    html_url: testUrl(links, view.repo.repo, t.testId),
    name: t.name,
    variant: t.variant,
    status: { value: t.status.value, reason: t.status.reason, timestamp: t.status.timestamp.toISOString() },
    ...identity(t),
    codeowners: [...t.codeowners],
    pull_requests_impacted_last_7d: view.metrics.pullRequestsImpactedLast7d,
    quarantined: view.quarantined,
  };
  if (t.ticket) out.ticket = { html_url: t.ticket.url };
  if (failures) {
    out.most_common_failures = view.mostCommonFailures ?? [];
    out.failure_rate_last_7d = view.metrics.failureRateLast7d;
    out.failure_rate_last_24h = view.metrics.failureRateLast24h;
  }
  return out;
}

export function serializeQuarantined(v: QuarantinedView) {
  const t = v.test;
  return {
    name: t.name,
    parent: t.parent,
    file: t.file ?? t.fileHint,
    classname: t.classname,
    status: t.status.value.toUpperCase(),
    codeowners: t.codeowners,
    quarantine_setting: v.setting,
    quarantined_at: v.quarantinedAt.toISOString(),
    quarantined_by: v.setting === 'ALWAYS_QUARANTINE' ? (t.quarantine?.actor ?? null) : null,
    expires_at: v.setting === 'ALWAYS_QUARANTINE' && t.quarantine?.expiresAt ? t.quarantine.expiresAt.toISOString() : null,
    status_last_updated_at: t.status.timestamp.toISOString(),
    test_case_id: t.testId,
    variant: t.variant,
  };
}
