// Request schemas of the dashboard's read endpoints (docs/api.md, "Dashboard reads").
import type { RepoRef } from '../../shared/repo-ref.js';
import { branchSchema, repoSchema } from '../validation/common.js';
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
