// The 200 answers of the flaky-tests endpoints, as api/flaky-tests/serializers produce them. The
// OpenAPI document describes them and a test validates every real answer against them.
import Type, { type TSchema } from 'typebox';
import { HEALTH_STATUSES } from '../../../shared/flaky-tests/domain/detection/types.js';

const closed = <P extends Record<string, TSchema>>(properties: P) => Type.Object(properties, { additionalProperties: false });
const oneOf = (values: readonly string[]) => Type.Enum([...values], { type: 'string' });
const dateTime = Type.String({ format: 'date-time' });
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const count = Type.Integer({ minimum: 0 });
const OVERRIDES = ['ALWAYS_QUARANTINE', 'NEVER_QUARANTINE', 'UNSPECIFIED'];

const repo = closed({ host: Type.String(), owner: Type.String(), name: Type.String() });

export const PageResponse = closed({
  total_rows: count,
  total_pages: count,
  next_page_token: Type.String(),
  prev_page_token: Type.String(),
  last_page_token: Type.String(),
  page_index: count,
});

const testProperties = {
  id: Type.String({ format: 'uuid' }),
  repository: closed({ html_url: Type.String({ format: 'uri' }) }),
  html_url: Type.String({ format: 'uri' }),
  name: Type.String(),
  variant: Type.String(),
  status: closed({ value: oneOf(HEALTH_STATUSES), reason: Type.String(), timestamp: dateTime }),
  file_path: Type.Optional(Type.String()),
  parent: Type.Optional(Type.String()),
  classname: Type.Optional(Type.String()),
  codeowners: Type.Array(Type.String()),
  pull_requests_impacted_last_7d: count,
  quarantined: Type.Boolean(),
  ticket: Type.Optional(closed({ html_url: Type.String() })),
};

const failureProperties = {
  most_common_failures: Type.Array(closed({ summary: Type.String(), occurrence_count: count, last_occurrence: Type.Optional(dateTime) })),
  failure_rate_last_7d: Type.Number({ minimum: 0, maximum: 1 }),
  failure_rate_last_24h: Type.Number({ minimum: 0, maximum: 1 }),
};

export const UnhealthyTest = closed(testProperties);
export const FailingTest = closed({ ...testProperties, ...failureProperties });

export const ListUnhealthyResponse = closed({ tests: Type.Array(UnhealthyTest), page: PageResponse });
export const ListFailingResponse = closed({ tests: Type.Array(FailingTest), page: PageResponse });
export const TestDetailsResponse = closed({ test: FailingTest });

export const ListQuarantinedResponse = closed({
  quarantined_tests: Type.Array(
    closed({
      name: Type.String(),
      parent: nullable(Type.String()),
      file: nullable(Type.String()),
      classname: nullable(Type.String()),
      status: oneOf(HEALTH_STATUSES.map((s) => s.toUpperCase())),
      codeowners: Type.Array(Type.String()),
      quarantine_setting: oneOf(['ALWAYS_QUARANTINE', 'AUTO_QUARANTINE']),
      quarantined_at: dateTime,
      /** Who set the ALWAYS_QUARANTINE override; null for an automatic quarantine. */
      quarantined_by: nullable(Type.String()),
      /** When the override stops counting; null when it has no end (or for an automatic quarantine). */
      expires_at: nullable(dateTime),
      status_last_updated_at: dateTime,
      test_case_id: Type.String({ format: 'uuid' }),
      variant: Type.String(),
    }),
  ),
  page: PageResponse,
});

const scope = { branch_classes: Type.Array(Type.String()), branch_patterns: Type.Array(Type.String()) };

export const RepoSettingsResponse = closed({
  repo,
  known: Type.Boolean(),
  quarantine: closed({ enabled: Type.Boolean(), auto_quarantine: Type.Boolean(), release_after_clean_days: Type.Integer() }),
  detection: closed({
    stable_branches: Type.Array(Type.String()),
    merge_queue_patterns: Type.Array(Type.String()),
    pass_on_retry: closed({ enabled: Type.Boolean(), recovery_days: Type.Integer(), ...scope }),
    failure_rate: Type.Array(
      closed({
        id: Type.String(),
        enabled: Type.Boolean(),
        classification: oneOf(['flaky', 'broken']),
        activation_threshold: Type.Number(),
        resolution_threshold: Type.Number(),
        window_hours: Type.Integer(),
        min_sample_size: Type.Integer(),
        stale_timeout_hours: nullable(Type.Integer()),
        ...scope,
      }),
    ),
    failure_count: Type.Array(
      closed({
        id: Type.String(),
        enabled: Type.Boolean(),
        classification: oneOf(['flaky', 'broken']),
        failure_threshold: Type.Integer(),
        window_hours: Type.Integer(),
        resolution_timeout_hours: Type.Integer(),
        ...scope,
      }),
    ),
    infrastructure_failure: closed({ enabled: Type.Boolean(), threshold: Type.Number(), min_tests: Type.Integer() }),
  }),
  ticket_url_template: nullable(Type.String()),
  effective_ticket_url_template: nullable(Type.String()),
  version: Type.Integer(),
  updated_at: nullable(dateTime),
  /** The last 20 changes, newest first. */
  history: Type.Array(closed({ at: dateTime, actor: Type.String(), change: Type.String(), reason: nullable(Type.String()) })),
});

export const QuarantineOverrideResponse = closed({
  test_id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  status: oneOf(HEALTH_STATUSES),
  override: oneOf(OVERRIDES),
  reason: nullable(Type.String()),
  updated_at: nullable(dateTime),
  updated_by: nullable(Type.String()),
  expires_at: nullable(dateTime),
  /** Set when its automatic quarantine was released after clean days (until it fails again). */
  released_at: nullable(dateTime),
  quarantining_enabled: Type.Boolean(),
  quarantined: Type.Boolean(),
  history: Type.Array(closed({ at: dateTime, actor: Type.String(), from: oneOf(OVERRIDES), to: oneOf(OVERRIDES), reason: Type.String() })),
});

const issue = closed({ level: oneOf(['error', 'warning']), code: Type.String(), message: Type.String(), line: Type.Optional(Type.Integer()) });

export const UploadResultResponse = closed({
  upload_id: Type.String({ format: 'uuid' }),
  runs: count,
  passed: count,
  failed: count,
  skipped: count,
  tests: count,
  excluded_from_detection: Type.Boolean(),
  status_changes: count,
  files: Type.Array(
    closed({
      name: Type.String(),
      compressed: Type.Boolean(),
      runs: count,
      passed: count,
      failed: count,
      skipped: count,
      warnings: Type.Array(issue),
      errors: Type.Array(issue),
    }),
  ),
  warnings: Type.Array(issue),
});

export const CreateBundleUploadResponse = closed({
  id: Type.String({ format: 'uuid' }),
  idV2: Type.String({ format: 'uuid' }),
  url: Type.String({ format: 'uri' }),
  key: Type.String(),
});

export const QuarantineConfigResponse = closed({ isDisabled: Type.Boolean(), testIds: Type.Array(Type.String()) });

/** An upload not processed within FLAKY_UPLOAD_WAIT_SECONDS: 202 with where to follow it. */
export const UploadAcceptedResponse = closed({ upload_id: Type.String({ format: 'uuid' }), status_url: Type.String({ format: 'uri' }) });

export const UploadStatusResponse = closed({
  upload_id: Type.String({ format: 'uuid' }),
  state: oneOf(['queued', 'processing', 'complete', 'failed']),
  result: nullable(UploadResultResponse),
  error: nullable(
    closed({
      code: Type.String(),
      message: Type.String(),
      details: Type.Array(closed({ path: Type.String(), message: Type.String() })),
    }),
  ),
});
