// Request schemas of the endpoints this service adds for repository settings and quarantine
// overrides (documented in docs/flaky-tests.md). snake_case like the rest of the flaky-tests API.
import Type, { type Static } from 'typebox';
import { MAX_BRANCH_PATTERNS, MAX_MONITORS_PER_KIND, MAX_RECOVERY_DAYS, MAX_WINDOW_HOURS } from '../../../shared/flaky-tests/domain/detection/config.js';
import { caseInsensitiveEnum, dateTimeSchema, MAX_NAME, repoSchema } from '../../validation/common.js';
import { MAX_RELEASE_AFTER_CLEAN_DAYS } from '../../../shared/flaky-tests/domain/detection/quarantine.js';
import { actorSchema, classificationSchema, orgSlugSchema, reasonSchema, testIdSchema } from './common-schemas.js';
import { compileValidator } from '../../validation/validator.js';

const BRANCH_CLASSES = ['main', 'pull_request', 'merge_queue', 'other'] as const;

const patternList = (max: number, minItems = 0) =>
  Type.Array(Type.String({ minLength: 1, maxLength: MAX_NAME }), { maxItems: max, ...(minItems > 0 ? { minItems } : {}) });

const scopeProperties = {
  branch_classes: Type.Optional(Type.Array(Type.Enum(BRANCH_CLASSES, { type: 'string' }), { maxItems: BRANCH_CLASSES.length, uniqueItems: true })),
  branch_patterns: Type.Optional(patternList(MAX_BRANCH_PATTERNS)),
};

const monitorId = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' });
const fraction = (opts: { exclusiveMinimum?: number } = {}) => Type.Number({ minimum: 0, maximum: 1, ...opts });
const windowHours = Type.Integer({ minimum: 1, maximum: MAX_WINDOW_HOURS });
const flag = Type.Optional(Type.Boolean());

const ScopeSchema = Type.Object(scopeProperties);
export type ScopeBody = Static<typeof ScopeSchema>;

const PassOnRetrySchema = Type.Object(
  { enabled: Type.Boolean(), recovery_days: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RECOVERY_DAYS })), ...scopeProperties },
  { additionalProperties: false },
);
export type PassOnRetryBody = Static<typeof PassOnRetrySchema>;

/** What every monitor has: its id, whether it runs, what it classifies tests as. */
const monitorProperties = { id: monitorId, enabled: flag, classification: classificationSchema };

const FailureRateSchema = Type.Object(
  {
    ...monitorProperties,
    activation_threshold: fraction({ exclusiveMinimum: 0 }),
    resolution_threshold: Type.Optional(fraction()),
    window_hours: windowHours,
    min_sample_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    stale_timeout_hours: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: MAX_WINDOW_HOURS }), Type.Null()])),
    ...scopeProperties,
  },
  { additionalProperties: false },
);
export type FailureRateBody = Static<typeof FailureRateSchema>;

const FailureCountSchema = Type.Object(
  {
    ...monitorProperties,
    failure_threshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    window_hours: windowHours,
    resolution_timeout_hours: Type.Optional(windowHours),
    ...scopeProperties,
  },
  { additionalProperties: false },
);
export type FailureCountBody = Static<typeof FailureCountSchema>;

const DetectionSchema = Type.Object(
  {
    stable_branches: Type.Optional(patternList(20, 1)),
    merge_queue_patterns: Type.Optional(patternList(MAX_BRANCH_PATTERNS)),
    pass_on_retry: Type.Optional(PassOnRetrySchema),
    failure_rate: Type.Optional(Type.Array(FailureRateSchema, { maxItems: MAX_MONITORS_PER_KIND })),
    failure_count: Type.Optional(Type.Array(FailureCountSchema, { maxItems: MAX_MONITORS_PER_KIND })),
    infrastructure_failure: Type.Optional(
      Type.Object(
        {
          enabled: Type.Boolean(),
          threshold: Type.Optional(fraction({ exclusiveMinimum: 0 })),
          min_tests: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type DetectionBody = Static<typeof DetectionSchema>;

export const UpdateSettingsSchema = Type.Object(
  {
    repo: repoSchema,
    org_url_slug: orgSlugSchema,
    reason: Type.Optional(reasonSchema),
    actor: Type.Optional(actorSchema),
    ticket_url_template: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
    quarantine: Type.Optional(
      Type.Object(
        { enabled: flag, auto_quarantine: flag, release_after_clean_days: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_RELEASE_AFTER_CLEAN_DAYS })) },
        { additionalProperties: false, minProperties: 1 },
      ),
    ),
    detection: Type.Optional(DetectionSchema),
  },
  { additionalProperties: false },
);
export type UpdateSettingsBody = Static<typeof UpdateSettingsSchema>;

export const parseUpdateSettings = compileValidator(UpdateSettingsSchema);

export const RepoSettingsQuerySchema = Type.Object({ repo: repoSchema, org_url_slug: orgSlugSchema }, { additionalProperties: false });
export type RepoSettingsQueryBody = Static<typeof RepoSettingsQuerySchema>;

export const parseGetSettings = compileValidator(RepoSettingsQuerySchema);

export const OverrideQuerySchema = Type.Object({ repo: repoSchema, org_url_slug: orgSlugSchema, test_id: testIdSchema }, { additionalProperties: false });
export type OverrideQueryBody = Static<typeof OverrideQuerySchema>;

export const parseGetOverride = compileValidator(OverrideQuerySchema);

/** `override` is lower-cased by the validator. */
export const SetOverrideSchema = Type.Object(
  {
    ...OverrideQuerySchema.properties,
    override: caseInsensitiveEnum(['always_quarantine', 'never_quarantine', 'unspecified'], 32),
    reason: reasonSchema,
    actor: Type.Optional(actorSchema),
    /** After it the override no longer counts and the test falls back to automatic quarantine. */
    expires_at: Type.Optional(Type.Union([dateTimeSchema(), Type.Null()])),
  },
  { additionalProperties: false },
);
export type SetOverrideBody = Static<typeof SetOverrideSchema>;

export const parseSetOverride = compileValidator(SetOverrideSchema);
