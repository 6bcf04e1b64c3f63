// Request schemas of the dashboard's read endpoints (docs/api.md, "Dashboard reads").
import Type, { type Static } from 'typebox';
import { branchSchema, MAX_NAME, repoSchema } from '../../validation/common.js';
import { compileValidator } from '../../validation/validator.js';

export const HEALTH_LIMITS = {
  windowHours: { minimum: 1, maximum: 24 * 90 },
  buckets: { minimum: 1, maximum: 200 },
} as const;

export const HISTORY_DAYS = { minimum: 1, maximum: 45 } as const;

export const EmptyBodySchema = Type.Object({}, { additionalProperties: false });
export const parseEmptyBody = compileValidator(EmptyBodySchema);

export const TokenInfoSchema = Type.Object(
  { repo: Type.Optional({ ...repoSchema, description: 'Answer the role held on this repository (a person signed in with GitHub holds one per repository)' }) },
  { additionalProperties: false },
);
export const parseTokenInfo = compileValidator(TokenInfoSchema);

export const ListTestRunsSchema = Type.Object({ repo: repoSchema, targetBranch: branchSchema }, { additionalProperties: false });
export type DashboardQueueRef = Static<typeof ListTestRunsSchema>;
export const parseListTestRuns = compileValidator(ListTestRunsSchema);

export const QueueHealthSchema = Type.Object(
  {
    repo: repoSchema,
    targetBranch: branchSchema,
    windowHours: Type.Optional(Type.Integer(HEALTH_LIMITS.windowHours)),
    buckets: Type.Optional(Type.Integer(HEALTH_LIMITS.buckets)),
  },
  { additionalProperties: false },
);
export type QueueHealthBody = Static<typeof QueueHealthSchema>;
export const parseQueueHealth = compileValidator(QueueHealthSchema);

// snake_case like the flaky-tests API it sits beside.
export const TestHistorySchema = Type.Object(
  {
    repo: repoSchema,
    org_url_slug: Type.String({ minLength: 1, maxLength: MAX_NAME }),
    test_id: Type.String({ format: 'uuid' }),
    days: Type.Optional(Type.Integer(HISTORY_DAYS)),
  },
  { additionalProperties: false },
);
export type TestHistoryBody = Static<typeof TestHistorySchema>;
export const parseTestHistory = compileValidator(TestHistorySchema);
