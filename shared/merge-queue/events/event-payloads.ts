// The JSON payload of an event, in the hosted product's flat form (wire-contract §5.1): `type`,
// `action`, `status`, the pull request, its repository and target branch, the test run and the
// reason field of the event. `detail` (what the reason does not say), `stack`, a failure's
// `verdict` and the target branch's health events are this service's additions.
import type { Entry, Queue, TestRun } from '../domain/model.js';
import type { EventPayload, StoredEvent } from '../../platform/events/event-types.js';
import type { MergeQueueEventSubject } from './event-types.js';
import type { FailureVerdict } from '../services/verdict-service.js';

export type Payload = EventPayload;

/** What an event's payload is rendered from, loaded when it is published. */
export interface PayloadSources {
  queue: Queue;
  entry: Entry | null;
  run: TestRun | null;
  /** Pull request numbers of the run's entries (batch events). */
  runPrNumbers: number[];
  /** The verdict on a pull request's failure (pull_request.failed) or on the run it waits on (pull_request.pending_failure), when there is one. */
  verdict?: FailureVerdict | null;
  /** Base URL of links (PUBLIC_URL). */
  baseUrl: string;
  /** The slug of the queue's organisation: the dashboard's links start with it. */
  orgSlug: string;
}

const REASON_FIELD: Readonly<Record<string, string>> = {
  submitted: 'submitted_reason',
  queued: 'queued_reason',
  pending_failure: 'failure_reason',
  failed: 'failure_reason',
  canceled: 'cancellation_reason',
  merged: 'merged_reason',
};

/**
 * The link a payload and a Slack message give for a pull request in a queue: its page in the
 * dashboard (docs/dashboard.md, deep links).
 */
export function pullRequestLink(baseUrl: string, orgSlug: string, queue: Pick<Queue, 'repo' | 'branch'>, prNumber: number): string {
  return `${baseUrl}/${encodeURIComponent(orgSlug)}/merge-queue/pull-request/${prNumber}?${queueQuery(queue)}`;
}

/** The dashboard page of a test run (docs/dashboard.md, deep links). */
export function testRunLink(baseUrl: string, orgSlug: string, queue: Pick<Queue, 'repo' | 'branch'>, testRunId: string): string {
  return `${baseUrl}/${encodeURIComponent(orgSlug)}/merge-queue/test-run/${encodeURIComponent(testRunId)}?${queueQuery(queue)}`;
}

function queueQuery(queue: Pick<Queue, 'repo' | 'branch'>): string {
  const { host, owner, name } = queue.repo;
  return new URLSearchParams({ repo: `${host}/${owner}/${name}`, branch: queue.branch }).toString();
}

function verdictField(v: FailureVerdict | null | undefined): Payload {
  if (!v) return {};
  return {
    verdict: {
      kind: v.kind,
      rule: v.rule,
      summary: v.summary,
      ...(v.missing ? { missing: v.missing } : {}),
      ...(v.interaction
        ? { interaction: { with_pr_number: v.interaction.withPrNumber, with_entry_id: v.interaction.withEntryId, alone_test_run_id: v.interaction.aloneRunId } }
        : {}),
      test_run_id: v.testRunId,
      tests: v.tests.map((t) => ({ id: t.id, name: t.name, known_flaky: t.knownFlaky, quarantined: t.quarantined, on_target: t.onTarget, on_head: t.onHead })),
    },
  };
}

function parseNames(json: string | undefined): string[] {
  const names: unknown = json ? JSON.parse(json) : [];
  return Array.isArray(names) ? names.map(String) : [];
}

function runFields(run: TestRun | null): Payload {
  if (!run) return {};
  return {
    test_branch: run.branch,
    ...(run.sha ? { test_branch_sha: run.sha } : {}),
    batched: run.entryIds.length > 1,
    is_bisection: run.kind === 'bisection',
  };
}

export function renderPayload(event: StoredEvent, src: PayloadSources): Payload {
  const subject = event.subject as MergeQueueEventSubject;
  const [family, action = ''] = event.type.split('.');
  const common: Payload = {
    type: event.type,
    timestamp: event.order.at.toISOString(),
    repository: { host: src.queue.repo.host, owner: src.queue.repo.owner, name: src.queue.repo.name },
    target_branch: src.queue.branch,
  };
  const reason = subject.reason ? { [REASON_FIELD[action] ?? 'reason']: subject.reason.toUpperCase() } : {};
  const detail = subject.detail ? { detail: subject.detail } : {};
  if (event.type === 'queue.state_changed') return { ...common, action, previous_state: subject.previousState, state: subject.state };
  if (subject.objective !== undefined) return { ...common, action, objective: JSON.parse(subject.objective) as unknown };
  if (subject.digest !== undefined) return { ...common, action, digest: JSON.parse(subject.digest) as unknown };
  if (subject.closure !== undefined) {
    return {
      ...common,
      action,
      closure: JSON.parse(subject.closure) as unknown,
      ...(subject.forecast ? { forecast: JSON.parse(subject.forecast) as unknown } : {}),
    };
  }
  if (family === 'queue') return { ...common, action, target_sha: subject.targetSha, tests: parseNames(subject.testNames) };
  if (family === 'pull_request_batch') {
    return { ...common, action, status: action, pr_numbers: src.runPrNumbers, ...runFields(src.run), ...reason, ...detail };
  }
  const entry = src.entry;
  if (!entry) throw new Error(`event ${event.id} (${event.type}) has no pull request`);
  return {
    ...common,
    action,
    status: action,
    author: entry.prAuthor,
    pr_number: entry.prNumber,
    pr_title: entry.prTitle,
    http_details_url: pullRequestLink(src.baseUrl, src.orgSlug, src.queue, entry.prNumber),
    ...(entry.stack ? { stack: { id: entry.stack.id, position: entry.stack.position, size: entry.stack.size, below_pr_number: entry.stack.belowPr } } : {}),
    ...runFields(src.run),
    ...reason,
    ...detail,
    ...verdictField(src.verdict),
  };
}
