// Every deep link of the dashboard is built here, so pages and the service's own links (the
// flaky tests' html_url) agree. A queue is named by `repo=<host>/<owner>/<name>` and `branch`.
import type { RepoRef } from './api/types';

export function repoParam(repo: RepoRef): string {
  return `${repo.host}/${repo.owner}/${repo.name}`;
}

/** `host/owner.../name` back to a RepoRef (owners may contain `/`). */
export function parseRepoParam(value: string | null): RepoRef | null {
  if (!value) return null;
  const parts = value.split('/').filter(Boolean);
  if (parts.length < 3) return null;
  return { host: parts[0]!, owner: parts.slice(1, -1).join('/'), name: parts[parts.length - 1]! };
}

const queueQuery = (repo: RepoRef, branch: string) => `repo=${encodeURIComponent(repoParam(repo))}&branch=${encodeURIComponent(branch)}`;

export const paths = {
  signIn: '/sign-in',
  tokens: (org: string) => `/${encodeURIComponent(org)}/tokens`,
  apiKeys: (org: string) => `/${encodeURIComponent(org)}/api-keys`,
  queues: (org: string) => `/${encodeURIComponent(org)}/merge-queue`,
  queue: (org: string, repo: RepoRef, branch: string) => `/${encodeURIComponent(org)}/merge-queue/queue?${queueQuery(repo, branch)}`,
  pullRequest: (org: string, repo: RepoRef, branch: string, pr: number) =>
    `/${encodeURIComponent(org)}/merge-queue/pull-request/${pr}?${queueQuery(repo, branch)}`,
  testRun: (org: string, repo: RepoRef, branch: string, id: string) =>
    `/${encodeURIComponent(org)}/merge-queue/test-run/${encodeURIComponent(id)}?${queueQuery(repo, branch)}`,
  health: (org: string, repo: RepoRef, branch: string) => `/${encodeURIComponent(org)}/merge-queue/health?${queueQuery(repo, branch)}`,
  /** The flaky-tests pages use the API's html_url layout: `repo=<owner>/<name>`, `host` only when not github.com. */
  flakyTests: (org: string, repo?: RepoRef) => `/${encodeURIComponent(org)}/flaky-tests${repo ? `?${flakyRepoQuery(repo)}` : ''}`,
  flakyTest: (org: string, repo: RepoRef, id: string) => `/${encodeURIComponent(org)}/flaky-tests/test/${encodeURIComponent(id)}?${flakyRepoQuery(repo)}`,
};

function flakyRepoQuery(repo: RepoRef): string {
  const host = repo.host === 'github.com' ? '' : `&host=${encodeURIComponent(repo.host)}`;
  return `repo=${encodeURIComponent(`${repo.owner}/${repo.name}`)}${host}`;
}

export function parseFlakyRepo(search: URLSearchParams): RepoRef | null {
  const slug = search.get('repo');
  if (!slug || !slug.includes('/')) return null;
  const cut = slug.lastIndexOf('/');
  return { host: search.get('host') || 'github.com', owner: slug.slice(0, cut), name: slug.slice(cut + 1) };
}

/** Only a path of this dashboard may follow sign-in: never another site (`//host`, `/\host`) nor a control character. */
export function safeNext(next: string | null): string | null {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  return next && next.startsWith('/') && !/^\/[/\\]/.test(next) && !/[\\\u0000-\u001f\u007f]/.test(next) ? next : null;
}

/**
 * A link to another site (a CI run, a ticket) as an href: only http(s). The service keeps only
 * such links, and the page does not trust that either, whatever stored them.
 */
export function externalHref(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}
