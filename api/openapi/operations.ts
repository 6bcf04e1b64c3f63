// Every operation this service serves, with the TypeBox schemas that validate its request and
// describe its 200 answer. The OpenAPI document (document.ts) is generated from this table, and a
// test checks that it names every registered route.
import Type, { type TObject, type TSchema } from 'typebox';
import { BUNDLE_UPLOAD_PATH } from '../../shared/flaky-tests/services/bundle-upload-service.js';
import * as mqRequest from '../merge-queue/schemas/pull-request-schemas.js';
import * as queueRequest from '../merge-queue/schemas/queue-schemas.js';
import * as runRequest from '../merge-queue/schemas/test-run-schemas.js';
import { MetricsQuerySchema } from '../merge-queue/schemas/metrics-schemas.js';
import { SimulateQueueResponse, SimulateQueueSchema } from '../merge-queue/schemas/simulation-schemas.js';
import { MergeWindowForecastResponse } from '../merge-queue/schemas/schedule-schemas.js';
import { GetQueueDigestResponse } from '../merge-queue/schemas/digest-schemas.js';
import * as mq from '../merge-queue/schemas/response-schemas.js';
import * as costRequest from '../merge-queue/schemas/cost-report-schemas.js';
import * as githubRepo from '../github/schemas/github-repository-schemas.js';
import * as listRequest from '../flaky-tests/schemas/list-schemas.js';
import * as settingsRequest from '../flaky-tests/schemas/settings-schemas.js';
import * as cliRequest from '../flaky-tests/schemas/cli-schemas.js';
import { UploadMetaSchema, UploadStatusQuerySchema } from '../flaky-tests/schemas/upload-schemas.js';
import * as flaky from '../flaky-tests/schemas/response-schemas.js';
import * as dashboard from '../merge-queue/schemas/dashboard-read-schemas.js';
import * as dashboardAnswer from '../merge-queue/schemas/dashboard-read-responses.js';
import { UPLOAD_STATUS_PATH } from '../flaky-tests/serializers/upload-status.js';
import * as accounts from '../accounts/schemas/account-schemas.js';
import * as webhooks from '../outbound-webhooks/schemas/webhook-endpoint-schemas.js';
import type { Role } from '../../shared/platform/accounts/roles.js';
import { DependencyLostResponse, HealthResponse, ReadinessResponse, ServiceStatusResponse } from '../health/health-schemas.js';
import { GitHubDeliveryHeadersSchema, GitHubDeliveryResponse } from '../github/schemas/github-webhook-schemas.js';
import { GitHubActionsLoginResponse, GitHubActionsLoginSchema } from '../sign-in/github-actions-login-schemas.js';

export const TAGS = {
  mergeQueue: 'Merge queue',
  flakyTests: 'Flaky tests',
  cli: 'Hosted CLI',
  administration: 'Administration',
  webhooks: 'Webhooks',
  service: 'Service',
  github: 'GitHub',
} as const;

/** The description and the reference page need no token (docs/decisions.md). */
export const DOCUMENT_PATH = '/v1/openapi.json';
export const REFERENCE_PATH = '/v1/docs';
export const REFERENCE_SCRIPT_PATH = '/v1/docs/api-reference.js';
export const REFERENCE_STYLES_PATH = '/v1/docs/api-reference.css';

export type Tag = (typeof TAGS)[keyof typeof TAGS];

export type RequestBody =
  | { kind: 'json'; schema: TSchema }
  | { kind: 'query'; schema: TObject }
  | { kind: 'multipart'; schema: TObject; encoding: Record<string, { contentType: string }> }
  | { kind: 'binary'; contentType: string; description: string; query: TObject; pathParams: TObject }
  /** A body read as bytes and authenticated by a signature header over them (GitHub's webhooks). */
  | { kind: 'signed'; contentType: string; description: string; headers: TObject };

export type Answer = { kind: 'json'; schema: TSchema } | { kind: 'text'; contentType: string; schema: TSchema };

export interface Operation {
  method: 'get' | 'post' | 'put';
  /** The full path (with /v1); parameters as `{name}`. */
  path: string;
  operationId: string;
  tag: Tag;
  summary: string;
  description?: string;
  /**
   * `public`: no token (the operation authenticates its caller itself, if at all). Otherwise the
   * least role a token needs (docs/api.md, Roles), checked by the router in front of the handler
   * (api/routing/operation-router.ts); rules that depend on the request belong to the use case.
   */
  access: Role | 'public';
  /** Part of the compatible hosted API (else this service's addition). */
  compatible: boolean;
  request?: RequestBody;
  ok: Answer;
  /** Statuses other than 200 that are part of the contract, e.g. 503 from /readyz. */
  otherAnswers?: Record<string, { description: string; answer: Answer }>;
}

const json = (schema: TSchema): Answer => ({ kind: 'json', schema });
const body = (schema: TSchema): RequestBody => ({ kind: 'json', schema });

/** A POST with a JSON body and a JSON answer, behind the API token: almost every operation. */
const jsonPost = (op: Omit<Operation, 'method' | 'request' | 'ok'> & { access: Role; request: TSchema; ok: TSchema }): Operation => ({
  ...op,
  method: 'post',
  request: body(op.request),
  ok: json(op.ok),
});

const mergeQueue = (name: string, access: Role, summary: string, request: TSchema, ok: TSchema, compatible = true, description?: string): Operation =>
  jsonPost({ path: `/v1/${name}`, operationId: name, tag: TAGS.mergeQueue, summary, ...(description ? { description } : {}), access, compatible, request, ok });

const administration = (name: string, access: Role, summary: string, request: TSchema, ok: TSchema): Operation =>
  jsonPost({ path: `/v1/${name}`, operationId: name, tag: TAGS.administration, summary, access, compatible: false, request, ok });

const webhookOp = (name: string, summary: string, request: TSchema, ok: TSchema): Operation =>
  jsonPost({ path: `/v1/${name}`, operationId: name, tag: TAGS.webhooks, summary, access: 'admin', compatible: false, request, ok });

const flakyTests = (name: string, access: Role, summary: string, request: TSchema, ok: TSchema, compatible: boolean): Operation =>
  jsonPost({
    access,
    path: `/v1/flaky-tests/${name}`,
    operationId: name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()),
    tag: TAGS.flakyTests,
    summary,
    compatible,
    request,
    ok,
  });

export const OPERATIONS: readonly Operation[] = [
  mergeQueue(
    'getTokenInfo',
    'read',
    'Who the caller is: the organisation, and the name and role of its token or person',
    dashboard.TokenInfoSchema,
    dashboardAnswer.TokenInfoResponse,
    false,
  ),
  mergeQueue(
    'listQueues',
    'read',
    "The organisation's queues with their counts by state and merges in the last 24 hours",
    dashboard.EmptyBodySchema,
    dashboardAnswer.ListQueuesResponse,
    false,
  ),
  mergeQueue(
    'listTestRuns',
    'read',
    "A queue's runs in progress, then its 20 most recent concluded runs",
    dashboard.ListTestRunsSchema,
    dashboardAnswer.ListTestRunsResponse,
    false,
  ),
  mergeQueue(
    'getQueueHealth',
    'read',
    "A queue's health over a window, in buckets (the dashboard's charts)",
    dashboard.QueueHealthSchema,
    dashboardAnswer.QueueHealthResponse,
    false,
  ),
  flakyTests('get-test-history', 'read', "A test's status changes and runs per day", dashboard.TestHistorySchema, dashboardAnswer.TestHistoryResponse, false),
  mergeQueue(
    'submitPullRequest',
    'write',
    'Submit a pull request to the queue',
    mqRequest.SubmitSchema,
    mq.EmptyResponse,
    true,
    'Submitting with the `urgent` priority needs the admin role.',
  ),
  mergeQueue('cancelPullRequest', 'write', 'Cancel a submitted pull request', mqRequest.PrRefSchema, mq.EmptyResponse),
  mergeQueue('restartTestsOnPullRequest', 'write', 'Restart the tests of a pull request under test', mqRequest.PrRefSchema, mq.EmptyResponse),
  mergeQueue('getSubmittedPullRequest', 'read', 'A submitted pull request, by number or branch', mqRequest.GetSubmittedSchema, mq.SubmittedPullRequestResponse),
  mergeQueue('setImpactedTargets', 'write', 'Upload the targets a pull request head impacts', mqRequest.SetImpactedTargetsSchema, mq.EmptyResponse),
  mergeQueue('listPullRequests', 'read', 'Pull requests of a queue, newest first, by cursor', mqRequest.ListPullRequestsSchema, mq.ListPullRequestsResponse),
  mergeQueue('createQueue', 'admin', 'Create the queue of a branch', queueRequest.CreateQueueSchema, mq.EmptyResponse),
  mergeQueue('getQueue', 'read', 'A queue, its settings and the pull requests in it', queueRequest.QueueRefSchema, mq.QueueResponse),
  mergeQueue(
    'getMergeWindowForecast',
    'read',
    'Which queued pull requests are expected to land before the next freeze begins, and which will wait',
    queueRequest.QueueRefSchema,
    MergeWindowForecastResponse,
    false,
    "For each pull request the next closure of the queue's schedule holds: `lands` (the ETA's latest estimate is before it begins), `may_land` (the estimate is, the latest is not), `waits`; `not_held` for pull requests it does not hold, `unknown` without an estimate (docs/merge-windows.md).",
  ),
  mergeQueue(
    'getQueueDigest',
    'read',
    "The queue's digest of its last ended period, as it would go out now",
    queueRequest.QueueRefSchema,
    GetQueueDigestResponse,
    false,
    'Merged pull requests and their time in queue, ejections by verdict, CI runs and minutes, each objective measured over the period and the costliest flaky tests; `digest` is null when the queue has no digest setting (docs/digests.md).',
  ),
  mergeQueue('updateQueue', 'admin', 'Change the settings or state of a queue', queueRequest.UpdateQueueSchema, mq.QueueSettingsResponse),
  mergeQueue('deleteQueue', 'admin', 'Delete an empty queue', queueRequest.QueueRefSchema, mq.EmptyResponse),
  administration(
    'getGitHubRepository',
    'read',
    "A GitHub repository's owning organisation and fork policy",
    githubRepo.GitHubRepositoryRefSchema,
    githubRepo.GitHubRepositoryResponse,
  ),
  administration(
    'updateGitHubRepository',
    'admin',
    'Allow or refuse pull requests from forks, or move a GitHub repository to another organisation',
    githubRepo.UpdateGitHubRepositorySchema,
    githubRepo.GitHubRepositoryResponse,
  ),
  mergeQueue(
    'getQueueCostReport',
    'read',
    'CI runs and minutes per merged pull request over a window, and the wasted runs by cause',
    costRequest.CostReportSchema,
    costRequest.CostReportResponse,
    false,
  ),
  mergeQueue(
    'getMergeQueueTestingDetails',
    'read',
    'A test run: its branch, statuses and pull requests',
    runRequest.TestingDetailsSchema,
    mq.TestingDetailsResponse,
  ),
  mergeQueue(
    'setCommitStatus',
    'write',
    'Report a CI status on a commit (a test branch head)',
    runRequest.SetCommitStatusSchema,
    mq.EmptyResponse,
    false,
    'How CI reports results on test branches to this service (the hosted product reads them from the forge).',
  ),
  mergeQueue(
    'verifyCommit',
    'read',
    "Whether a target branch commit's exact tree was tested by the queue, by which run, with which required statuses",
    runRequest.VerifyCommitSchema,
    runRequest.VerifyCommitResponse,
    false,
    'Post-merge CI asks it to skip work the queue already ran on the same tree (docs/verdicts.md#every-tree-tested-once).',
  ),
  mergeQueue(
    'simulateQueue',
    'read',
    "Replay a queue's history under its settings and candidate ones, side by side",
    SimulateQueueSchema,
    SimulateQueueResponse,
    false,
    'The last `days` of the queue (arrivals, CI durations, failures and flakes inferred from its runs; at most `maxPullRequests`, the most recent, and the answer says when it sampled) run through the engine in virtual time. With `goal`, also the settings the simulator finds best for it. One replay runs at a time per API process and two more may wait; a second one of the same organisation, or one past the waiting places, is answered 429 (`simulation_in_progress`, `simulation_busy`) with Retry-After.',
  ),
  {
    method: 'get',
    path: '/v1/getMergeQueueMetrics',
    operationId: 'getMergeQueueMetrics',
    tag: TAGS.mergeQueue,
    summary: "The organisation's merge-queue metrics in the Prometheus text format",
    description: 'Every repository of the organisation, or one with `repo` (owner/name) and `repoHost`.',
    access: 'read',
    compatible: true,
    request: { kind: 'query', schema: MetricsQuerySchema },
    ok: { kind: 'text', contentType: 'text/plain', schema: mq.MetricsTextResponse },
  },

  administration(
    'createToken',
    'admin',
    'Create an API token with a role; the answer shows the token once',
    accounts.CreateTokenSchema,
    accounts.TokenResponse,
  ),
  administration('listTokens', 'admin', "The organisation's API tokens (never their values)", accounts.EmptyRequestSchema, accounts.ListTokensResponse),
  administration('revokeToken', 'admin', 'Revoke an API token', accounts.TokenIdSchema, mq.EmptyResponse),
  administration(
    'createApiKey',
    'admin',
    'Create a v2 API key with merge-queue permissions (sent as Authorization: Bearer on /v2); the answer shows the key once',
    accounts.CreateApiKeySchema,
    accounts.ApiKeyResponse,
  ),
  administration('listApiKeys', 'admin', "The organisation's v2 API keys (never their values)", accounts.EmptyRequestSchema, accounts.ListApiKeysResponse),
  administration('revokeApiKey', 'admin', 'Revoke a v2 API key', accounts.TokenIdSchema, mq.EmptyResponse),
  administration(
    'createPersonalToken',
    'read',
    'Create a token of your own (a person signed in), at most your role, expiring after PERSONAL_TOKEN_DAYS; the answer shows it once',
    accounts.CreateTokenSchema,
    accounts.TokenResponse,
  ),
  administration(
    'listPersonalTokens',
    'read',
    'Your own tokens (a person signed in), never their values',
    accounts.EmptyRequestSchema,
    accounts.ListTokensResponse,
  ),
  administration('revokePersonalToken', 'read', 'Revoke one of your own tokens (a person signed in)', accounts.TokenIdSchema, mq.EmptyResponse),
  administration(
    'listAuditEvents',
    'read',
    'Who changed queues, tokens, webhooks and quarantine overrides, newest first',
    accounts.ListAuditEventsSchema,
    accounts.ListAuditEventsResponse,
  ),

  webhookOp(
    'createWebhookEndpoint',
    'Create a webhook endpoint; the answer shows its signing secret once',
    webhooks.CreateEndpointSchema,
    webhooks.EndpointWithSecretResponse,
  ),
  webhookOp('listWebhookEndpoints', "The organisation's webhook endpoints", accounts.EmptyRequestSchema, webhooks.ListEndpointsResponse),
  webhookOp('updateWebhookEndpoint', 'Change, disable or re-enable a webhook endpoint', webhooks.UpdateEndpointSchema, webhooks.EndpointResponse),
  webhookOp('deleteWebhookEndpoint', 'Delete a webhook endpoint and its deliveries', webhooks.EndpointIdSchema, mq.EmptyResponse),
  webhookOp(
    'rotateWebhookSecret',
    'A new signing secret; the previous one keeps signing for 24 hours',
    webhooks.EndpointIdSchema,
    webhooks.EndpointWithSecretResponse,
  ),
  webhookOp('listWebhookDeliveries', "An endpoint's recent deliveries, newest first", webhooks.ListDeliveriesSchema, webhooks.ListDeliveriesResponse),
  webhookOp('redeliverWebhook', 'Send one delivery again (same webhook-id)', webhooks.DeliveryIdSchema, webhooks.DeliveryResponse),

  flakyTests(
    'list-failing-tests',
    'read',
    'Tests that failed in a time window (at most 7 days)',
    listRequest.ListFailingSchema,
    flaky.ListFailingResponse,
    true,
  ),
  flakyTests('list-unhealthy-tests', 'read', 'Flaky or broken tests', listRequest.ListUnhealthySchema, flaky.ListUnhealthyResponse, true),
  flakyTests('list-quarantined-tests', 'read', 'Quarantined tests', listRequest.ListQuarantinedSchema, flaky.ListQuarantinedResponse, true),
  flakyTests('get-test-details', 'read', 'One test, with its failure summary and rates', listRequest.TestDetailsSchema, flaky.TestDetailsResponse, true),
  flakyTests('link-ticket-to-test-case', 'write', 'Link a ticket to a test', listRequest.LinkTicketSchema, mq.EmptyResponse, true),
  flakyTests(
    'get-repo-settings',
    'read',
    "A repository's quarantine and detection settings",
    settingsRequest.RepoSettingsQuerySchema,
    flaky.RepoSettingsResponse,
    false,
  ),
  flakyTests(
    'update-repo-settings',
    'admin',
    "Change a repository's quarantine and detection settings",
    settingsRequest.UpdateSettingsSchema,
    flaky.RepoSettingsResponse,
    false,
  ),
  flakyTests(
    'get-quarantine-override',
    'read',
    "A test's quarantine override and its history",
    settingsRequest.OverrideQuerySchema,
    flaky.QuarantineOverrideResponse,
    false,
  ),
  flakyTests(
    'set-quarantine-override',
    'admin',
    'Always or never quarantine a test, or clear the override',
    settingsRequest.SetOverrideSchema,
    flaky.QuarantineOverrideResponse,
    false,
  ),
  {
    method: 'post',
    path: '/v1/flaky-tests/upload',
    operationId: 'uploadTestResults',
    tag: TAGS.flakyTests,
    summary: 'Upload JUnit XML reports of a CI job',
    description:
      'multipart/form-data: the `meta` part (JSON) first, then one or more `junit` parts (XML, optionally gzip-compressed), and an optional `codeowners` part.',
    access: 'write',
    compatible: false,
    request: {
      kind: 'multipart',
      schema: Type.Object({
        meta: UploadMetaSchema,
        junit: Type.Array(Type.String({ contentMediaType: 'application/octet-stream' }), { minItems: 1 }),
        codeowners: Type.Optional(Type.String()),
      }),
      encoding: { meta: { contentType: 'application/json' }, junit: { contentType: 'application/xml, application/gzip' } },
    },
    ok: json(flaky.UploadResultResponse),
    otherAnswers: {
      '202': { description: 'Stored but not processed within FLAKY_UPLOAD_WAIT_SECONDS: follow status_url', answer: json(flaky.UploadAcceptedResponse) },
    },
  },
  {
    method: 'get',
    path: UPLOAD_STATUS_PATH,
    operationId: 'getUploadStatus',
    tag: TAGS.flakyTests,
    summary: 'The state of an upload that was answered 202',
    description:
      "An upload not processed within FLAKY_UPLOAD_WAIT_SECONDS is answered `202 {upload_id, status_url}`; this is the status_url. `result` is the upload's counts once complete, `error` its refusal once failed.",
    access: 'read',
    compatible: false,
    request: { kind: 'query', schema: UploadStatusQuerySchema },
    ok: json(flaky.UploadStatusResponse),
  },

  jsonPost({
    path: '/v1/metrics/createBundleUpload',
    operationId: 'createBundleUpload',
    tag: TAGS.cli,
    access: 'write',
    summary: 'Where the hosted CLI uploads a test bundle',
    description: "The hosted CLI's internal endpoint (unknown fields are accepted): answers a one-time upload URL.",
    compatible: false,
    request: cliRequest.CreateBundleUploadSchema,
    ok: flaky.CreateBundleUploadResponse,
  }),
  jsonPost({
    path: '/v1/metrics/getQuarantineConfig',
    operationId: 'getQuarantineConfig',
    tag: TAGS.cli,
    access: 'read',
    summary: 'Quarantined test ids for the hosted CLI',
    description: "The hosted CLI's internal endpoint (unknown fields are accepted).",
    compatible: false,
    request: cliRequest.GetQuarantineConfigSchema,
    ok: flaky.QuarantineConfigResponse,
  }),
  {
    method: 'put',
    path: `${BUNDLE_UPLOAD_PATH}/{id}`,
    operationId: 'putBundleUpload',
    tag: TAGS.cli,
    summary: 'Receive a test bundle at the URL createBundleUpload issued',
    description: 'Like a presigned URL it carries no API token: the `key` of the issued URL authorises the one upload.',
    access: 'public',
    compatible: false,
    request: {
      kind: 'binary',
      contentType: 'application/octet-stream',
      description: 'The bundle the hosted CLI builds: a tar archive, zstd- or gzip-compressed, with JUnit reports and bundle metadata.',
      query: Type.Object({ key: Type.String({ pattern: '^[A-Za-z0-9_-]{20,100}$' }) }),
      pathParams: Type.Object({ id: Type.String({ format: 'uuid' }) }),
    },
    ok: json(flaky.UploadResultResponse),
    otherAnswers: {
      '202': { description: 'Stored but not processed within FLAKY_UPLOAD_WAIT_SECONDS: follow status_url', answer: json(flaky.UploadAcceptedResponse) },
    },
  },

  {
    method: 'post',
    path: '/v1/githubActionsLogin',
    operationId: 'githubActionsLogin',
    tag: TAGS.mergeQueue,
    summary: "Exchange a GitHub Actions run's OpenID Connect token for a 15-minute token that uploads impacted targets of the run's repository",
    description:
      "No API token: the run's token from GitHub is checked against the issuer's keys (GITHUB_ACTIONS_OIDC_ISSUER), its audience (GITHUB_ACTIONS_OIDC_AUDIENCE) and its event (pull_request, merge_group, push, workflow_dispatch). The answer's token works only for PUT /v2/impacted-targets of that repository (docs/api-v2.md#uploads-from-github-actions).",
    access: 'public',
    compatible: false,
    request: body(GitHubActionsLoginSchema),
    ok: json(GitHubActionsLoginResponse),
  },
  {
    method: 'post',
    path: '/webhooks/github',
    operationId: 'receiveGitHubWebhook',
    tag: TAGS.github,
    summary: "Receive a GitHub webhook delivery (GitHub App's or repository's webhook)",
    description:
      'No API token: GitHub signs the raw body with the webhook secret (`X-Hub-Signature-256`). Served when `GITHUB_WEBHOOK_SECRET` is set. A delivery seen before answers 200 `duplicate`.',
    access: 'public',
    compatible: false,
    request: {
      kind: 'signed',
      contentType: 'application/json',
      description: "GitHub's event payload, exactly as GitHub sent it",
      headers: GitHubDeliveryHeadersSchema,
    },
    ok: json(GitHubDeliveryResponse),
    otherAnswers: { '202': { description: 'Accepted: recorded and handed to a job', answer: json(GitHubDeliveryResponse) } },
  },
  {
    method: 'get',
    path: '/v1/status',
    operationId: 'getStatus',
    tag: TAGS.service,
    summary: 'Service status in the compatible API’s form (no token)',
    access: 'public',
    compatible: true,
    ok: json(ServiceStatusResponse),
  },
  {
    method: 'get',
    path: '/healthz',
    operationId: 'health',
    tag: TAGS.service,
    summary: 'The process is alive and no dependency is lost for good (no token)',
    access: 'public',
    compatible: false,
    ok: json(HealthResponse),
    otherAnswers: { '503': { description: 'A dependency has been unreachable longer than DEPENDENCY_LOST_SECONDS', answer: json(DependencyLostResponse) } },
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'readiness',
    tag: TAGS.service,
    summary: 'The database and Redis answer (no token)',
    access: 'public',
    compatible: false,
    ok: json(ReadinessResponse),
    otherAnswers: { '503': { description: 'A dependency does not answer', answer: json(ReadinessResponse) } },
  },
  {
    method: 'get',
    path: DOCUMENT_PATH,
    operationId: 'getOpenApiDocument',
    tag: TAGS.service,
    summary: 'This description: OpenAPI 3.1 (no token)',
    access: 'public',
    compatible: false,
    ok: json(Type.Object({ openapi: Type.Literal('3.1.0') })),
  },
  {
    method: 'get',
    path: REFERENCE_PATH,
    operationId: 'getApiReference',
    tag: TAGS.service,
    summary: 'The API reference page, rendered from this description (no token)',
    access: 'public',
    compatible: false,
    ok: { kind: 'text', contentType: 'text/html', schema: Type.String() },
  },
  {
    method: 'get',
    path: REFERENCE_SCRIPT_PATH,
    operationId: 'getApiReferenceScript',
    tag: TAGS.service,
    summary: "The reference page's script (Swagger UI's bundle, served from this service)",
    access: 'public',
    compatible: false,
    ok: { kind: 'text', contentType: 'text/javascript', schema: Type.String() },
  },
  {
    method: 'get',
    path: REFERENCE_STYLES_PATH,
    operationId: 'getApiReferenceStyles',
    tag: TAGS.service,
    summary: "The reference page's styles (Swagger UI's, served from this service)",
    access: 'public',
    compatible: false,
    ok: { kind: 'text', contentType: 'text/css', schema: Type.String() },
  },
];
