// The rules of delivery that need no receiver: the retry schedule, which secrets sign, the
// payload of a batch event and the Slack messages of a failure and of a target branch's health.
import { expect } from 'chai';
import { loadConfig } from '../../../shared/composition/config.js';
import { retryDelayMs, slackMessage as slackMessageOf } from '../../../shared/platform/events/webhook-dispatcher.js';
import { signingSecrets } from '../../../shared/platform/events/store/webhook-endpoint-repository.js';
import { SECRET_OVERLAP_MS } from '../../../shared/platform/events/webhook-endpoint-service.js';
import { renderPayload } from '../../../shared/merge-queue/events/event-payloads.js';
import { mergeQueueSlackText } from '../../../shared/merge-queue/events/slack-text.js';
import { MERGE_QUEUE_EVENT_TYPES } from '../../../shared/merge-queue/events/event-types.js';
import { flakyTestsEventFormat } from '../../../shared/flaky-tests/events/event-format.js';
import type { EventPayload, StoredEvent } from '../../../shared/platform/events/event-types.js';
import type { Queue } from '../../../shared/merge-queue/domain/model.js';
import { entry, run } from '../../../shared/merge-queue/simulation/builders.js';

/** The Slack lines of both products' events, as the dispatcher picks them. */
const slackMessage = (payload: EventPayload) =>
  slackMessageOf([{ types: MERGE_QUEUE_EVENT_TYPES, slackText: mergeQueueSlackText }, flakyTestsEventFormat], payload);

describe('webhook delivery rules', () => {
  it('retries first within 30 s and keeps retrying, ever more slowly, for about a day (defaults)', () => {
    const { webhooks } = loadConfig({});
    expect(retryDelayMs(webhooks, 1)).to.be.at.most(30_000);
    const delays = Array.from({ length: webhooks.maxAttempts - 1 }, (_, i) => retryDelayMs(webhooks, i + 1));
    for (let i = 1; i < delays.length; i++) expect(delays[i]).to.equal(2 * delays[i - 1]!);
    const total = delays.reduce((a, b) => a + b, 0);
    expect(total / 3_600_000).to.be.within(18, 30);
    expect(webhooks.disableAfterSeconds).to.equal(86_400);
  });

  it('signs with the current secret and, until it expires, the rotated-out one', () => {
    const now = new Date('2026-11-23T12:00:00Z');
    const endpoint = {
      secrets: [
        { value: 'whsec_new', createdAt: now, expiresAt: null },
        { value: 'whsec_old', createdAt: new Date(0), expiresAt: new Date(now.getTime() + SECRET_OVERLAP_MS) },
      ],
    };
    expect(signingSecrets(endpoint, now)).to.deep.equal(['whsec_new', 'whsec_old']);
    expect(signingSecrets(endpoint, new Date(now.getTime() + SECRET_OVERLAP_MS - 1))).to.deep.equal(['whsec_new', 'whsec_old']);
    expect(signingSecrets(endpoint, new Date(now.getTime() + SECRET_OVERLAP_MS))).to.deep.equal(['whsec_new']);
  });

  const queue = { id: 'q1', repo: { host: 'github.com', owner: 'acme', name: 'app' }, branch: 'main' } as Pick<Queue, 'id' | 'repo' | 'branch'>;
  const event = (over: Partial<StoredEvent>): StoredEvent => ({
    id: 'ev1',
    orgId: 'o1',
    type: 'pull_request_batch.failed',
    orderKey: 'run:r1',
    order: { at: new Date('2026-11-23T12:00:00Z'), version: 1 },
    subject: { queueId: 'q1', runId: 'r1', reason: 'test_run_failed' },
    createdAt: new Date(),
    payload: null,
    publishedAt: null,
    ...over,
  });

  it("a stack member's event says its place and why it left with the member below", () => {
    const member = entry(12, { prTitle: 'Layer 2', stack: { id: 'q1:11', position: 2, size: 3, belowPr: 11, belowHeadBranch: 'layer-1' } });
    const payload = renderPayload(
      event({
        type: 'pull_request.failed',
        orderKey: 'pr:q1:12',
        subject: { queueId: 'q1', entryId: member.id, reason: 'stack_member_removed', detail: 'PR #11 below it in its stack failed' },
      }),
      { queue: queue as Queue, entry: member, run: null, runPrNumbers: [], baseUrl: 'https://mq.example', orgSlug: 'acme' },
    );
    expect(payload).to.deep.include({
      pr_number: 12,
      stack: { id: 'q1:11', position: 2, size: 3, below_pr_number: 11 },
      failure_reason: 'STACK_MEMBER_REMOVED',
      detail: 'PR #11 below it in its stack failed',
    });
  });

  it('renders a batch event with its pull requests and test branch', () => {
    const batch = run('r1', [1, 2], [], { status: 'failed' });
    const payload = renderPayload(event({}), {
      queue: queue as Queue,
      entry: null,
      run: batch,
      runPrNumbers: [3, 4],
      baseUrl: 'https://mq.example',
      orgSlug: 'acme',
    });
    expect(payload).to.deep.equal({
      type: 'pull_request_batch.failed',
      action: 'failed',
      status: 'failed',
      timestamp: '2026-11-23T12:00:00.000Z',
      repository: { host: 'github.com', owner: 'acme', name: 'app' },
      target_branch: 'main',
      pr_numbers: [3, 4],
      test_branch: batch.branch,
      test_branch_sha: batch.sha,
      batched: true,
      is_bisection: false,
      failure_reason: 'TEST_RUN_FAILED',
    });
  });

  it('writes a Slack message that says what happened, to which pull request, why, with a link', () => {
    const message = slackMessage({
      type: 'pull_request.failed',
      pr_number: 12,
      pr_title: 'Fix <script> & more',
      repository: { host: 'github.com', owner: 'acme', name: 'app' },
      target_branch: 'main',
      failure_reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      detail: 'ci/test failed',
      http_details_url: 'https://mq.example/queues/github.com/acme/app/main/pull-requests/12',
    });
    expect(message).to.deep.equal({
      text:
        'Pull request #12 “Fix &lt;script&gt; &amp; more” (acme/app → main) failed and left the merge queue — test run required status failed: ci/test failed' +
        ' <https://mq.example/queues/github.com/acme/app/main/pull-requests/12|details>',
    });
  });

  it("writes a Slack message for a test's status change and a merged batch", () => {
    const repository = { host: 'github.com', owner: 'acme', name: 'app' };
    expect(
      slackMessage({
        type: 'test.status_changed',
        repository,
        test: { id: 't1', name: 'adds', status: 'flaky' },
        from: 'healthy',
        to: 'flaky',
        reason: 'Failed once on main',
      }),
    ).to.deep.equal({
      text: 'Test “adds” of acme/app is now flaky (was healthy) — Failed once on main',
    });
    expect(
      slackMessage({ type: 'pull_request_batch.merged', repository, target_branch: 'main', pr_numbers: [1, 2], merged_reason: 'MERGE_GRAPH_MERGE' }),
    ).to.deep.equal({
      text: 'Pull requests #1, #2 (acme/app → main) were merged together — merge graph merge',
    });
  });

  it('writes a Slack message for a target branch that breaks and one that is green again', () => {
    const repository = { host: 'github.com', owner: 'acme', name: 'app' };
    const sha = 'a'.repeat(40);
    expect(slackMessage({ type: 'queue.target_broken', repository, target_branch: 'main', target_sha: sha, tests: ['checkout', 'cart'] })).to.deep.equal({
      text: 'Merge queue acme/app → main: main is broken at aaaaaaaaaaaa (failing there: checkout, cart); pull requests that fail only those tests wait in the queue until it is green again',
    });
    expect(slackMessage({ type: 'queue.target_recovered', repository, target_branch: 'main', target_sha: sha, tests: ['checkout'] })).to.deep.equal({
      text: 'Merge queue acme/app → main: main is green again at aaaaaaaaaaaa (no longer failing: checkout); pull requests held for it are tested again',
    });
  });

  it('writes a Slack message for an objective breached and recovered', () => {
    const repository = { host: 'github.com', owner: 'acme', name: 'app' };
    const objective = {
      metric: 'time_in_queue_p50',
      level: 'critical',
      value: 195.456,
      unit: 'minutes',
      warning: 60,
      critical: 180,
      windowHours: 24,
      since: '2026-12-01T12:36:00.000Z',
    };
    expect(slackMessage({ type: 'queue.objective_breached', repository, target_branch: 'main', objective }).text).to.equal(
      'Merge queue acme/app → main: time in queue p50 is at critical: 195.46 minutes (warning at 60, critical at 180, over 24 h) since 2026-12-01 12:36 UTC',
    );
    expect(
      slackMessage({ type: 'queue.objective_recovered', repository, target_branch: 'main', objective: { ...objective, level: 'ok', value: null } }).text,
    ).to.equal(
      'Merge queue acme/app → main: time in queue p50 is back within its objective: nothing to measure (warning at 60, critical at 180, over 24 h) since 2026-12-01 12:36 UTC',
    );
  });

  it('writes a Slack message for a freeze announced with its forecast, begun and ended', () => {
    const repository = { host: 'github.com', owner: 'acme', name: 'app' };
    const closure = {
      kind: 'freeze',
      name: 'release',
      reason: 'cut 4.2',
      targets: [],
      startsAt: '2026-12-10T16:00:00.000Z',
      endsAt: '2026-12-11T08:00:00.000Z',
    };
    const forecast = [
      { prNumber: 12, outcome: 'lands' },
      { prNumber: 14, outcome: 'lands' },
      { prNumber: 15, outcome: 'may_land' },
      { prNumber: 16, outcome: 'waits' },
    ];
    const base = { repository, target_branch: 'main', closure };
    expect(slackMessage({ ...base, type: 'queue.freeze_announced', forecast }).text).to.equal(
      'Merge queue acme/app → main: the freeze "release" (cut 4.2) begins at 2026-12-10 16:00 UTC; it lasts until 2026-12-11 08:00 UTC; expected to land before it: #12, #14; may land: #15; will wait: #16',
    );
    expect(slackMessage({ ...base, type: 'queue.freeze_started' }).text).to.equal(
      'Merge queue acme/app → main: the freeze "release" (cut 4.2) has begun; it lasts until 2026-12-11 08:00 UTC',
    );
    expect(slackMessage({ ...base, type: 'queue.freeze_ended' }).text).to.equal(
      'Merge queue acme/app → main: the freeze "release" (cut 4.2) has ended; waiting pull requests go in queue order',
    );
    const window = { ...base, closure: { ...closure, kind: 'outside_window', name: 'outside the merge windows', reason: null } };
    expect(slackMessage({ ...window, type: 'queue.freeze_started' }).text).to.equal(
      'Merge queue acme/app → main: the merge window has closed; it lasts until 2026-12-11 08:00 UTC',
    );
    expect(slackMessage({ ...window, type: 'queue.freeze_ended' }).text).to.equal('Merge queue acme/app → main: the merge window is open again');
  });
});
