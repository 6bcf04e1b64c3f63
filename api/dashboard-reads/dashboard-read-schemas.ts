// Request schemas of the dashboard's read endpoints (docs/api.md, "Dashboard reads").
import type { RepoRef } from '../../shared/repo-ref.js';
import { branchSchema, MAX_NAME, repoSchema } from '../validation/common.js';
import { compileValidator } from '../validation/validator.js';

export const HEALTH_LIMITS = {
  windowHours: { minimum: 1, maximum: 24 * 90 },
  buckets: { minimum: 1, maximum: 200 },
} as const;

export const parseEmptyBody = compileValidator<Record<string, never>>({
  type: 'object',
  additionalProperties: false,
  properties: {},
});

export interface DashboardQueueRef {
  repo: RepoRef;
  targetBranch: string;
}

export const parseListTestRuns = compileValidator<DashboardQueueRef>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'targetBranch'],
  properties: { repo: repoSchema, targetBranch: branchSchema },
});

export interface QueueHealthBody extends DashboardQueueRef {
  windowHours?: number;
  buckets?: number;
}

export const parseQueueHealth = compileValidator<QueueHealthBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'targetBranch'],
  properties: {
    repo: repoSchema,
    targetBranch: branchSchema,
    windowHours: { type: 'integer', ...HEALTH_LIMITS.windowHours },
    buckets: { type: 'integer', ...HEALTH_LIMITS.buckets },
  },
});

export const HISTORY_DAYS = { minimum: 1, maximum: 45 } as const;

export interface TestHistoryBody {
  repo: RepoRef;
  org_url_slug: string;
  test_id: string;
  days?: number;
}

// snake_case like the flaky-tests API it sits beside.
export const parseTestHistory = compileValidator<TestHistoryBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'org_url_slug', 'test_id'],
  properties: {
    repo: repoSchema,
    org_url_slug: { type: 'string', minLength: 1, maxLength: MAX_NAME },
    test_id: { type: 'string', format: 'uuid' },
    days: { type: 'integer', ...HISTORY_DAYS },
  },
});
