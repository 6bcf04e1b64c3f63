// The hosted CLI's meta.json → UploadMeta. The CLI records the commit and branch it found in git
// and a whitelist of CI variables (`envs`); pull-request numbers and the branch of a PR build come
// from those variables, the way the CLI's own environment parser reads them (notes §1.3, §2.2).
import { invalid } from '../../../platform/errors.js';
import { parseRepoUrl } from '../../domain/test-identity.js';
import { parsePrNumber } from '../../domain/branch-class.js';
import type { BundleMeta } from './index.js';
import type { RepoRef } from '../../../platform/repo-ref.js';
import type { BundleUpload, UploadMeta } from '../../domain/model.js';
import { normalizeUploadMeta } from '../../domain/upload-meta.js';

const SHA = /^[0-9a-f]{7,64}$/;

function env(envs: Record<string, string>, ...names: string[]): string | null {
  for (const n of names) {
    const v = envs[n];
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
  }
  return null;
}

function prFromEnvs(envs: Record<string, string>): number | null {
  const ref = env(envs, 'GITHUB_REF');
  const fromRef = ref ? /^refs\/pull\/(\d+)\//.exec(ref)?.[1] : undefined;
  const candidates = [
    env(envs, 'PR_NUMBER'),
    fromRef ?? null,
    env(envs, 'CI_MERGE_REQUEST_IID'),
    env(envs, 'BUILDKITE_PULL_REQUEST'),
    env(envs, 'CIRCLE_PR_NUMBER'),
    env(envs, 'SYSTEM_PULLREQUEST_PULLREQUESTNUMBER'),
    env(envs, 'BITBUCKET_PR_ID'),
    env(envs, 'SEMAPHORE_GIT_PR_NUMBER'),
    env(envs, 'TRAVIS_PULL_REQUEST'),
    env(envs, 'DRONE_PULL_REQUEST'),
    env(envs, 'ghprbPullId', 'CHANGE_ID'),
  ];
  for (const c of candidates) {
    const n = parsePrNumber(c);
    if (n !== null) return n;
  }
  return null;
}

function sameRepo(a: RepoRef, b: RepoRef): boolean {
  return `${a.host}/${a.owner}/${a.name}`.toLowerCase() === `${b.host}/${b.owner}/${b.name}`.toLowerCase();
}

export function metaFromBundle(meta: BundleMeta, claim: Pick<BundleUpload, 'orgSlug' | 'repo'>): UploadMeta {
  const envs: Record<string, string> = {};
  for (const [k, v] of Object.entries(meta.envs ?? {})) if (typeof v === 'string') envs[k] = v;
  if (meta.org && meta.org !== claim.orgSlug) {
    throw invalid('bundle_org_mismatch', `the bundle is for organization ${JSON.stringify(meta.org)}, the upload URL for ${JSON.stringify(claim.orgSlug)}`);
  }
  const r = meta.repo?.repo;
  let repo: RepoRef = claim.repo;
  if (r && typeof r.host === 'string' && typeof r.owner === 'string' && typeof r.name === 'string') {
    repo = { host: r.host, owner: r.owner, name: r.name };
  } else if (typeof meta.repo?.repo_url === 'string') {
    repo = parseRepoUrl(meta.repo.repo_url) ?? claim.repo;
  }
  if (!sameRepo(repo, claim.repo)) {
    throw invalid(
      'bundle_repo_mismatch',
      `the bundle is for repository ${repo.host}/${repo.owner}/${repo.name}, the upload URL for ${claim.repo.host}/${claim.repo.owner}/${claim.repo.name}`,
    );
  }
  const sha = (typeof meta.repo?.repo_head_sha === 'string' ? meta.repo.repo_head_sha : '').trim().toLowerCase();
  if (!SHA.test(sha)) throw invalid('bundle_invalid_meta', 'meta.json: repo.repo_head_sha must be a commit sha');
  const headRef = env(envs, 'GITHUB_HEAD_REF');
  const branch =
    env(envs, 'COMMIT_BRANCH') ??
    headRef ??
    env(envs, 'CI_MERGE_REQUEST_SOURCE_BRANCH_NAME') ??
    (typeof meta.repo?.repo_head_branch === 'string' && meta.repo.repo_head_branch.trim() !== '' ? meta.repo.repo_head_branch.trim() : null) ??
    env(envs, 'GITHUB_REF_NAME', 'CI_COMMIT_REF_NAME', 'BUILDKITE_BRANCH', 'CIRCLE_BRANCH') ??
    '';
  const uploadEpoch = typeof meta.upload_time_epoch === 'number' && Number.isFinite(meta.upload_time_epoch) ? meta.upload_time_epoch : null;
  const attempt = env(envs, 'GITHUB_RUN_ATTEMPT', 'BUILDKITE_RETRY_COUNT', 'CI_JOB_RETRY');
  return normalizeUploadMeta({
    repo,
    orgUrlSlug: claim.orgSlug,
    sha,
    branch,
    prNumber: prFromEnvs(envs),
    variant: typeof meta.variant === 'string' ? meta.variant : '',
    jobName: env(envs, 'JOB_NAME', 'GITHUB_JOB', 'CI_JOB_NAME', 'BUILDKITE_LABEL'),
    jobUrl: env(envs, 'JOB_URL'),
    ciAttempt: attempt !== null && /^\d+$/.test(attempt) ? Number(attempt) : null,
    startedAt: uploadEpoch !== null ? new Date(uploadEpoch * 1000) : null,
    gitlabMergeRequestEventType: env(envs, 'CI_MERGE_REQUEST_EVENT_TYPE'),
  });
}
