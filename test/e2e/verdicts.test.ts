// "Was it mine?" end to end (issue 26 §1) on a real git repository: a fake CI fails the run
// (uploading its JUnit report, or not), the target branch's own results are uploaded for the
// commit the run was built on, and getSubmittedPullRequest answers the verdict on the failure —
// the pull request's own fault, the target branch's, a known flake's or the infrastructure's —
// with the evidence, checked against the OpenAPI document; the pull_request.failed webhook and
// the Slack message carry it, and a pending failure's event the provisional verdict. A broken
// target branch is entered, holds the failures it explains, and is left.
import { expect } from 'chai';
import { junit } from '../integration/flaky-support.js';
import { Harness, ref, type Submitted } from './engine-support.js';
import { readTree, resolve } from '../../scripts/lib/git-fixtures.js';
import { expectOpenApiResponse } from '../helpers/openapi.js';
import { LOOPBACK_RECEIVERS_ALLOWED, startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../../scripts/lib/wait.js';

interface Judged extends Submitted {
  verdict?: {
    kind: string;
    rule: string;
    summary: string;
    missing?: string;
    interaction?: { withPrNumber: number | null; withEntryId: string; aloneRunId: string };
    testRunId: string;
    tests: { id: string; name: string; knownFlaky: boolean; quarantined: boolean; onTarget: string | null; onHead: string | null }[];
  };
}

describe('verdicts on failed pull requests (end to end)', function () {
  this.timeout(120_000);
  let h: Harness;

  beforeEach(async () => {
    h = await Harness.start(LOOPBACK_RECEIVERS_ALLOWED);
    // These cases look at the verdict on an ejection; the last one lets the queue act on it.
    await h.configure({ testResultsWaitSeconds: 1, notItsFaultRetries: 0 });
  });
  afterEach(async () => {
    await h.close();
  });

  /** CI's results for main's head: the commit the pull request's run is built on. */
  async function targetResults(tests: Record<string, string>): Promise<string> {
    const sha = await resolve(h.fx, 'main');
    expect(await h.uploadReport({ sha, branch: 'main', junit: junit(tests) })).to.equal(200);
    return sha;
  }

  /** Pull request 1 submitted and failed by CI, its report (if any) uploaded first; the answer with its verdict. */
  async function failed(report: Record<string, string> | null): Promise<Judged> {
    h.runCi(() => 'failure', report ? () => ({ junit: junit(report) }) : undefined);
    await h.pr(1);
    await h.submit(1);
    const [pr] = await h.finals([1]);
    expect(pr!.state).to.equal('failed');
    const res = await h.svc.post<Judged>('/getSubmittedPullRequest', { ...ref, pr: { number: 1 } });
    expect(res.status).to.equal(200);
    expectOpenApiResponse('/getSubmittedPullRequest', res.body);
    // The run that failed it: the last (a known flake's failure is tested again first).
    expect(res.body.verdict?.testRunId).to.equal(Harness.runIds(pr!).at(-1));
    return res.body;
  }

  it('yours: a test that fails in the run passed on the target commit the run was built on', async () => {
    const sha = await targetResults({ checkout_total: 'p', ok_test: 'p' });
    const pr = await failed({ checkout_total: 'f', ok_test: 'p' });
    expect(pr.verdict).to.deep.include({
      kind: 'yours',
      rule: 'passes_on_target',
      summary: `checkout_total failed here and passed on main at ${sha.slice(0, 12)}`,
    });
    expect(pr.verdict!.tests).to.deep.include({
      id: pr.verdict!.tests[0]!.id,
      name: 'checkout_total',
      knownFlaky: false,
      quarantined: false,
      onTarget: 'passed',
      onHead: null,
    });
  });

  it('the pull_request.failed webhook and the Slack message carry the verdict', async () => {
    const [json, slack] = [await startWebhookReceiver(), await startWebhookReceiver()];
    try {
      for (const [url, kind] of [
        [json.url, 'standard'],
        [slack.url, 'slack'],
      ] as const) {
        const res = await h.svc.post('/createWebhookEndpoint', { url, kind, events: ['pull_request.failed'] });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
      }
      const sha = await targetResults({ checkout_total: 'p', ok_test: 'p' });
      const pr = await failed({ checkout_total: 'f', ok_test: 'p' });
      const [event] = await waitFor('the failed event', async () => json.received.length > 0 && json.received);
      expect(event!.json.verdict).to.deep.equal({
        kind: 'yours',
        rule: 'passes_on_target',
        summary: pr.verdict!.summary,
        test_run_id: pr.verdict!.testRunId,
        tests: [{ id: pr.verdict!.tests[0]!.id, name: 'checkout_total', known_flaky: false, quarantined: false, on_target: 'passed', on_head: null }],
      });
      const [message] = await waitFor('the Slack message', async () => slack.received.length > 0 && slack.received);
      expect(String(message!.json.text)).to.contain(`. Verdict: its own failure — checkout_total failed here and passed on main at ${sha.slice(0, 12)} <http`);
    } finally {
      await json.close();
      await slack.close();
    }
  });

  it('not yours, target branch: the same test fails on the target commit without the change', async () => {
    // Main's results arrive after the ejection (had they come first, the branch would have been
    // broken and the pull request held: the next case). The verdict is decided when asked, so it
    // reads them. Their failure also makes the test flaky (a failure on a stable branch); the
    // verdict still names the target branch, where it fails without the change.
    const first = await failed({ checkout_total: 'f', ok_test: 'p' });
    expect(first.verdict).to.deep.include({ kind: 'unknown', rule: 'no_evidence' });
    await targetResults({ checkout_total: 'f', ok_test: 'p' });
    const pr = (await h.svc.post<Judged>('/getSubmittedPullRequest', { ...ref, pr: { number: 1 } })).body;
    expect(pr.verdict).to.deep.include({ kind: 'target_branch', rule: 'fails_on_target' });
    expect(pr.verdict!.tests.map((t) => [t.name, t.onTarget])).to.deep.equal([['checkout_total', 'failed']]);
  });

  it('not yours, infrastructure: a required status failed and no test results arrived for the run', async () => {
    await targetResults({ ok_test: 'p' });
    const pr = await failed(null);
    expect(pr.verdict).to.deep.include({ kind: 'infrastructure', rule: 'no_results', tests: [] });
  });

  it('not yours, flaky: with re-tests off, the only failing test was known as flaky before the run', async () => {
    await h.configure({ flakyRetries: 0 });
    // flaky_test fails then passes on one commit of main: pass-on-retry, known as flaky.
    await targetResults({ flaky_test: 'fp', ok_test: 'p' });
    const pr = await failed({ flaky_test: 'f', ok_test: 'p' });
    expect(pr.verdict).to.deep.include({ kind: 'flaky', rule: 'only_known_flaky' });
  });

  it('with notItsFaultRetries 1, an infrastructure failure is tested again, then held with a queue warning instead of ejected', async () => {
    await h.configure({ notItsFaultRetries: 1 });
    const receiver = await startWebhookReceiver();
    after(() => receiver.close());
    expect((await h.svc.post('/createWebhookEndpoint', { url: receiver.url, events: ['pull_request.pending_failure'] })).status).to.equal(200);
    await targetResults({ ok_test: 'p' });
    // CI fails every run and never uploads results: the infrastructure's fault.
    const ci = h.runCi(() => 'failure');
    await h.pr(1);
    await h.submit(1);
    const held = await waitFor(
      '#1 held',
      async () => {
        const s = await h.get(1);
        return s.timeline[0]?.reason === 'test_run_held_not_its_fault' ? s : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(held.state).to.equal('pending_failure');
    // Held, it already answers the (provisional) verdict on the run it waits on.
    const answer = await h.svc.post<Judged>('/getSubmittedPullRequest', { ...ref, pr: { number: 1 } });
    expectOpenApiResponse('/getSubmittedPullRequest', answer.body);
    expect(answer.body.verdict).to.deep.include({ kind: 'infrastructure', rule: 'no_results', testRunId: Harness.runIds(held).at(-1) });
    const reasons = held.timeline.map((t) => t.reason);
    expect(reasons.filter((r) => r === 'test_run_retried_not_its_fault')).to.have.length(1);
    expect(held.timeline.find((t) => t.reason === 'test_run_retried_not_its_fault')?.detail).to.equal(
      'not its fault (infrastructure, rule no_results): a required status failed but no test results were uploaded for the test run; testing again (re-test 1 of 1)',
    );
    expect(ci.runs.map((r) => r.verdict)).to.deep.equal(['failure', 'failure']);
    // The queue says why nothing behind it moves.
    const queue = await h.svc.post<{ warnings: { code: string; message: string; testRunIds: string[] }[] }>('/getQueue', ref);
    expectOpenApiResponse('/getQueue', queue.body);
    const warning = queue.body.warnings.find((w) => w.code === 'failure_held_not_its_fault');
    expect(warning?.message).to.match(
      /^pull request #1 is held in the queue: not its fault \(infrastructure, rule no_results\): .* it waits instead of leaving the queue/,
    );
    expect(warning?.testRunIds).to.deep.equal([Harness.runIds(held).at(-1)]);
    // Each pending failure's event carries the provisional verdict on the run it waits on.
    const events = await waitFor('the held event', async () => receiver.received.length >= 3 && receiver.received);
    expect(events.map((e) => [e.json.failure_reason, (e.json.verdict as { rule: string }).rule])).to.deep.equal([
      ['TEST_RUN_FAILED', 'no_results'],
      ['TEST_RUN_FAILED', 'no_results'],
      ['TEST_RUN_HELD_NOT_ITS_FAULT', 'no_results'],
    ]);
    expect((events[2]!.json.verdict as { test_run_id: string }).test_run_id).to.equal(Harness.runIds(held).at(-1));
    // Someone cancels it: the warning goes.
    expect((await h.svc.post('/cancelPullRequest', { ...ref, pr: { number: 1 } })).status).to.equal(200);
    const cleared = await h.svc.post<{ warnings: unknown[] }>('/getQueue', ref);
    expect(cleared.body.warnings).to.deep.equal([]);
  });

  it('a broken target branch: entered when tests fail on its head, failures of those tests held instead of ejected, left when it is green', async () => {
    const receiver = await startWebhookReceiver();
    after(() => receiver.close());
    const endpoint = await h.svc.post('/createWebhookEndpoint', { url: receiver.url, events: ['queue.target_broken', 'queue.target_recovered'] });
    expect(endpoint.status).to.equal(200);
    const warningsNow = async () => {
      const res = await h.svc.post<{ warnings: { code: string; message: string }[] }>('/getQueue', ref);
      expectOpenApiResponse('/getQueue', res.body);
      return res.body.warnings;
    };
    // Post-merge CI's results for main's head: checkout_total fails there.
    const sha = await targetResults({ checkout_total: 'f', ok_test: 'p' });
    const [broken] = await waitFor('the broken-branch warning', async () => {
      const found = (await warningsNow()).filter((w) => w.code === 'target_branch_broken');
      return found.length > 0 && found;
    });
    expect(broken!.message).to.equal(
      `main is broken at ${sha.slice(0, 12)}, where tests fail without any queued change (checkout_total); pull requests that fail only those tests wait in the queue instead of leaving it until main is green again`,
    );
    // A pull request failing only that test is held, though notItsFaultRetries is 0 here.
    let green = false;
    h.runCi(
      () => (green ? 'success' : 'failure'),
      () => ({ junit: junit({ checkout_total: green ? 'p' : 'f', ok_test: 'p' }) }),
    );
    await h.pr(1);
    await h.submit(1);
    const held = await waitFor('#1 held for the branch', async () => {
      const s = await h.get(1);
      return s.timeline[0]?.reason === 'test_run_held_target_broken' ? s : undefined;
    });
    expect(held.state).to.equal('pending_failure');
    expect((await warningsNow()).map((w) => w.code)).to.deep.equal(['target_branch_broken', 'failure_held_not_its_fault']);
    // Main is fixed (a re-run of its head passes): the queue leaves the state and tests #1 again.
    green = true;
    expect(await h.uploadReport({ sha, branch: 'main', junit: junit({ checkout_total: 'p', ok_test: 'p' }) })).to.equal(200);
    const [pr] = await h.finals([1]);
    expect(pr!.state).to.equal('merged');
    const done = await h.get(1);
    expect(done.timeline.find((t) => t.reason === 'test_run_retried_not_its_fault')?.detail).to.match(/^main is green again at [0-9a-f]{12}: testing again$/);
    expect(await warningsNow()).to.deep.equal([]);
    const events = await waitFor('both events', async () => receiver.received.length >= 2 && receiver.received);
    expect(events.map((e) => [e.json.type, e.json.target_sha, e.json.tests])).to.deep.equal([
      ['queue.target_broken', sha, ['checkout_total']],
      ['queue.target_recovered', sha, ['checkout_total']],
    ]);
  });

  describe('the interaction check', () => {
    // #1 and #3 each pass alone and break the build together; #2 is harmless. A batch of the
    // three fails, #1 and #2 pass as a prefix, #3 is blamed on top of them.
    const clash = (files: Record<string, string>) => ('f1.txt' in files && 'f3.txt' in files ? 'failure' : 'success');
    async function batchOfThree(checkInteractions: boolean): Promise<Submitted[]> {
      await h.configure({
        batch: true,
        batchingMinSize: 3,
        batchingMaxWaitTimeMinutes: 60,
        bisectionConcurrency: 2,
        optimizationMode: 'bisection_skip_redundant_tests',
        checkInteractions,
      });
      h.runCi(clash);
      for (const n of [1, 2, 3]) await h.pr(n);
      for (const n of [1, 2, 3]) await h.submit(n);
      const final = await h.finals([1, 2, 3]);
      expect(final.map((s) => s.state)).to.deep.equal(['merged', 'merged', 'failed']);
      return final;
    }
    const verdictOf = async (n: number): Promise<Judged> => {
      const res = await h.svc.post<Judged>('/getSubmittedPullRequest', { ...ref, pr: { number: n } });
      expect(res.status).to.equal(200);
      expectOpenApiResponse('/getSubmittedPullRequest', res.body);
      return res.body;
    };

    it('a pull request that passes alone and fails only with a batch-mate is ejected with the verdict interaction, naming it', async () => {
      const [, , third] = await batchOfThree(true);
      const { verdict } = await verdictOf(3);
      expect([verdict?.kind, verdict?.rule, verdict?.interaction?.withPrNumber]).to.deep.equal(['interaction', 'fails_only_together', 1]);
      expect(verdict!.summary).to.contain('fails only together with #1');

      // The run alone: #3 on the batch's own base (main before #1 and #2 merged), and it passed.
      const alone = await h.details(verdict!.interaction!.aloneRunId);
      expect([alone.status, alone.testedPullRequests.map((p) => p.prNumber)]).to.deep.equal(['succeeded', [3]]);
      const aloneFiles = Object.keys(await readTree(h.fx, alone.testBranchSha)).filter((f) => f.startsWith('f'));
      expect(aloneFiles).to.deep.equal(['f3.txt']);
      // The run that condemns it: #3 on that base with #1 below it, failed.
      const together = await h.details(verdict!.testRunId);
      expect([together.status, together.testedPullRequests.map((p) => p.prNumber)]).to.deep.equal(['failed', [3]]);
      expect(Object.keys(await readTree(h.fx, together.testBranchSha)).filter((f) => f.startsWith('f'))).to.deep.equal(['f1.txt', 'f3.txt']);

      // The timeline says what the check did, and the ejection names the pair.
      const words = third.timeline.map((t) => t.detail ?? '');
      expect(words.some((d) => d.startsWith('interaction check: testing #3 on the batch'))).to.equal(true);
      expect(third.timeline[0]!.detail).to.match(/passes alone \(test run .+\) and fails together with PR #1/);
      // #1, merged, learns it on its own timeline.
      const first = await h.get(1);
      expect([first.state, first.timeline[0]?.reason]).to.deep.equal(['merged', 'interaction_found']);
      expect(first.timeline[0]?.detail).to.contain('PR #3 passes alone');
    });

    it('with checkInteractions off the bisection condemns it on top of its batch-mates, with no verdict of interaction and fewer runs', async () => {
      const [first, , third] = await batchOfThree(false);
      const { verdict } = await verdictOf(3);
      expect(verdict?.kind).to.not.equal('interaction');
      expect(verdict).to.not.have.property('interaction');
      expect(third.timeline.some((t) => (t.detail ?? '').startsWith('interaction check'))).to.equal(false);
      // The batch, then #1-#2 (passed): #3 is blamed by the batch run itself.
      expect(new Set([...Harness.runIds(first!), ...Harness.runIds(third)]).size).to.equal(2);
    });
  });

  it('no verdict while the pull request is still in the queue, or when it merged', async () => {
    h.runCi(() => 'success');
    await h.pr(1);
    await h.submit(1);
    await h.finals([1]);
    const res = await h.svc.post<Judged>('/getSubmittedPullRequest', { ...ref, pr: { number: 1 } });
    expect(res.body.state).to.equal('merged');
    expect(res.body).to.not.have.property('verdict');
  });
});
