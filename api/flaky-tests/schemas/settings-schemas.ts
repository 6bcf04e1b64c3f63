// Request schemas of the endpoints this service adds for repository settings and quarantine
// overrides (documented in docs/flaky-tests.md). snake_case like the rest of the flaky-tests API.
import type { RepoRef } from '../../../shared/repo-ref.js';
import { MAX_BRANCH_PATTERNS, MAX_MONITORS_PER_KIND, MAX_RECOVERY_DAYS, MAX_WINDOW_HOURS } from '../../../shared/flaky-tests/domain/detection/config.js';
import type { BranchClass } from '../../../shared/flaky-tests/domain/branch-class.js';
import { MAX_NAME, repoSchema } from '../../validation/common.js';
import { actorSchema, orgSlugSchema, reasonSchema, testIdSchema } from './common-schemas.js';
import { compileValidator } from '../../validation/validator.js';

const BRANCH_CLASSES = ['main', 'pull_request', 'merge_queue', 'other'] as const;

const patternList = (max: number) => ({
  type: 'array',
  maxItems: max,
  items: { type: 'string', minLength: 1, maxLength: MAX_NAME },
});

const scopeProperties = {
  branch_classes: { type: 'array', maxItems: BRANCH_CLASSES.length, uniqueItems: true, items: { type: 'string', enum: [...BRANCH_CLASSES] } },
  branch_patterns: patternList(MAX_BRANCH_PATTERNS),
};

const monitorId = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' };
const classification = { type: 'string', maxLength: 16, caseInsensitiveEnum: ['flaky', 'broken'] };
const fraction = { type: 'number', minimum: 0, maximum: 1 };
const windowHours = { type: 'integer', minimum: 1, maximum: MAX_WINDOW_HOURS };

export interface ScopeBody {
  branch_classes?: BranchClass[];
  branch_patterns?: string[];
}

export interface PassOnRetryBody extends ScopeBody {
  enabled: boolean;
  recovery_days?: number;
}

export interface FailureRateBody extends ScopeBody {
  id: string;
  enabled?: boolean;
  classification: 'flaky' | 'broken';
  activation_threshold: number;
  resolution_threshold?: number;
  window_hours: number;
  min_sample_size?: number;
  stale_timeout_hours?: number | null;
}

export interface FailureCountBody extends ScopeBody {
  id: string;
  enabled?: boolean;
  classification: 'flaky' | 'broken';
  failure_threshold?: number;
  window_hours: number;
  resolution_timeout_hours?: number;
}

export interface DetectionBody {
  stable_branches?: string[];
  merge_queue_patterns?: string[];
  pass_on_retry?: PassOnRetryBody;
  failure_rate?: FailureRateBody[];
  failure_count?: FailureCountBody[];
  infrastructure_failure?: { enabled: boolean; threshold?: number; min_tests?: number };
}

export interface UpdateSettingsBody {
  repo: RepoRef;
  org_url_slug: string;
  quarantine?: { enabled?: boolean; auto_quarantine?: boolean };
  detection?: DetectionBody;
  ticket_url_template?: string | null;
  reason?: string;
  actor?: string;
}

export const parseUpdateSettings = compileValidator<UpdateSettingsBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'org_url_slug'],
  properties: {
    repo: repoSchema,
    org_url_slug: orgSlugSchema,
    reason: reasonSchema,
    actor: actorSchema,
    ticket_url_template: { anyOf: [{ type: 'string', maxLength: 1024 }, { type: 'null' }] },
    quarantine: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: { enabled: { type: 'boolean' }, auto_quarantine: { type: 'boolean' } },
    },
    detection: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: {
        stable_branches: { ...patternList(20), minItems: 1 },
        merge_queue_patterns: patternList(MAX_BRANCH_PATTERNS),
        pass_on_retry: {
          type: 'object',
          additionalProperties: false,
          required: ['enabled'],
          properties: { enabled: { type: 'boolean' }, recovery_days: { type: 'integer', minimum: 1, maximum: MAX_RECOVERY_DAYS }, ...scopeProperties },
        },
        failure_rate: {
          type: 'array',
          maxItems: MAX_MONITORS_PER_KIND,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'classification', 'activation_threshold', 'window_hours'],
            properties: {
              id: monitorId,
              enabled: { type: 'boolean' },
              classification,
              activation_threshold: { ...fraction, exclusiveMinimum: 0 },
              resolution_threshold: fraction,
              window_hours: windowHours,
              min_sample_size: { type: 'integer', minimum: 1, maximum: 100_000 },
              stale_timeout_hours: { anyOf: [{ type: 'integer', minimum: 1, maximum: MAX_WINDOW_HOURS }, { type: 'null' }] },
              ...scopeProperties,
            },
          },
        },
        failure_count: {
          type: 'array',
          maxItems: MAX_MONITORS_PER_KIND,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'classification', 'window_hours'],
            properties: {
              id: monitorId,
              enabled: { type: 'boolean' },
              classification,
              failure_threshold: { type: 'integer', minimum: 1, maximum: 100_000 },
              window_hours: windowHours,
              resolution_timeout_hours: windowHours,
              ...scopeProperties,
            },
          },
        },
        infrastructure_failure: {
          type: 'object',
          additionalProperties: false,
          required: ['enabled'],
          properties: {
            enabled: { type: 'boolean' },
            threshold: { ...fraction, exclusiveMinimum: 0 },
            min_tests: { type: 'integer', minimum: 1, maximum: 1_000_000 },
          },
        },
      },
    },
  },
});

export interface RepoSettingsQueryBody {
  repo: RepoRef;
  org_url_slug: string;
}

export const parseGetSettings = compileValidator<RepoSettingsQueryBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'org_url_slug'],
  properties: { repo: repoSchema, org_url_slug: orgSlugSchema },
});

export interface OverrideQueryBody {
  repo: RepoRef;
  org_url_slug: string;
  test_id: string;
}

export const parseGetOverride = compileValidator<OverrideQueryBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'org_url_slug', 'test_id'],
  properties: { repo: repoSchema, org_url_slug: orgSlugSchema, test_id: testIdSchema },
});

export interface SetOverrideBody extends OverrideQueryBody {
  /** Lower-cased by the validator. */
  override: 'always_quarantine' | 'never_quarantine' | 'unspecified';
  reason: string;
  actor?: string;
}

export const parseSetOverride = compileValidator<SetOverrideBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'org_url_slug', 'test_id', 'override', 'reason'],
  properties: {
    repo: repoSchema,
    org_url_slug: orgSlugSchema,
    test_id: testIdSchema,
    override: { type: 'string', maxLength: 32, caseInsensitiveEnum: ['always_quarantine', 'never_quarantine', 'unspecified'] },
    reason: reasonSchema,
    actor: actorSchema,
  },
});
