// Re-test instead of eject end to end (issue 12 §1–§2) on a real git repository: the fake CI
// uploads a JUnit report for every test branch head, before (and in one case after) reporting its
// status; the queue links the report to the test run and tests a group again when only tests
// known as flaky or quarantined failed.
import { expect } from 'chai';
import { bundle, junit } from '../integration/flaky-support.js';
import { startFakeCi } from '../helpers/fake-ci.js';
import { Harness, ref, repo, type Submitted } from './engine-support.js';
import { waitFor } from '../../scripts/lib/wait.js';

const ORG = 'default';
const mainSha = (n: number) => n.toString(16).padStart(40, 'f');

describe('merge engine, re-test instead of eject (end to end)', function () {
  this.timeout(120_000);
  let h: Harness;

  beforeEach(async () => {
    h = await Harness.start();
    await h.configure({});
  });
  afterEach(async () => {
    await h.close();
  });

  /** Test results of a commit outside the queue (main, or a feature branch). */
  async function uploadOn(branch: string, n: number, tests: Record<string, string>): Promise<void> {
    expect(await h.uploadReport({ sha: mainSha(n), branch, junit: junit(tests) })).to.equal(200);
  }

  /** flaky_test fails then passes on one commit of main: known as flaky (pass-on-retry). */
  async function knownFlaky(): Promise<void> {
    await uploadOn('main', 1, { flaky_test: 'fp', real_test: 'p', q_test: 'p' });
    const res = await h.svc.post<{ tests: { name: string }[] }>('/flaky-tests/list-unhealthy-tests', {
      repo,
      org_url_slug: ORG,
      status: 'FLAKY',
      page_query: { page_size: 10 },
    });
    expect(res.body.tests.map((t) => t.name)).to.deep.equal(['flaky_test']);
  }

  /** q_test quarantined by an ALWAYS_QUARANTINE override (it failed once on a feature branch: healthy). */
  async function quarantined(): Promise<void> {
    await uploadOn('feature-q', 2, { q_test: 'f', real_test: 'p' });
    const failing = await h.svc.post<{ tests: { id: string; name: string; status: string }[] }>('/flaky-tests/list-failing-tests', {
      repo,
      org_url_slug: ORG,
      page_query: { page_size: 10 },
      start_time: new Date(Date.now() - 3_600_000).toISOString(),
      end_time: new Date(Date.now() + 60_000).toISOString(),
    });
    const q = failing.body.tests.find((t) => t.name === 'q_test');
    expect(q, JSON.stringify(failing.body)).to.not.equal(undefined);
    const settings = await h.svc.post('/flaky-tests/update-repo-settings', {
      repo,
      org_url_slug: ORG,
      quarantine: { enabled: true, auto_quarantine: false },
      reason: 'on',
    });
    expect(settings.status, JSON.stringify(settings.body)).to.equal(200);
    const override = await h.svc.post('/flaky-tests/set-quarantine-override', {
      repo,
      org_url_slug: ORG,
      test_id: q!.id,
      override: 'ALWAYS_QUARANTINE',
      reason: 'known outage',
      actor: 'alice',
    });
    expect(override.status, JSON.stringify(override.body)).to.equal(200);
  }

  /** CI fails the first head it sees with `failing` failed in its report; every later head passes. */
  function ciFailingFirst(failing: string, opts: { after?: boolean } = {}) {
    return h.runCi(
      (_files, { seen }) => (seen === 1 ? 'failure' : 'success'),
      (_files, { seen }) => ({ junit: junit({ [failing]: seen === 1 ? 'f' : 'p', ok_test: 'p' }), ...(opts.after ? { after: true } : {}) }),
    );
  }

  /** Pull request 1 submitted; its final record. */
  async function submitOne(): Promise<Submitted> {
    await h.pr(1);
    await h.submit(1);
    const [pr] = await h.finals([1]);
    return pr!;
  }

  const resultsOf = async (runId: string | undefined) => (await h.details(runId!)).testResults;
  const reasonsOf = (s: Submitted) => s.timeline.map((t) => t.reason);
  const retest = (s: Submitted) => s.timeline.find((t) => t.reason === 'test_run_retried_known_flaky');

  it('a pull request whose only failing test is quarantined merges after one re-test', async () => {
    await quarantined();
    const ci = ciFailingFirst('q_test');
    const pr = await submitOne();
    expect(pr.state).to.equal('merged');
    expect(retest(pr)?.detail).to.contain('quarantined: q_test');
    expect(reasonsOf(pr).filter((r) => r === 'test_run_retried_known_flaky')).to.have.length(1);
    expect(ci.runs.map((r) => r.verdict)).to.deep.equal(['failure', 'success']);
    // Both runs tested the same tree on different commits: the re-test is a real new run.
    const [first, second] = Harness.runIds(pr);
    expect(first).to.not.equal(second);
    const failedRun = await resultsOf(first);
    expect(failedRun).to.deep.include({ uploads: 1, runs: 2, failed: 1 });
    expect(failedRun?.failedTests.map((t) => [t.name, t.quarantined])).to.deep.equal([['q_test', true]]);
    // The failure and the pass on one tree are a pass-on-retry flake.
    const flaky = await h.svc.post<{ tests: { name: string; status_reason?: string }[] }>('/flaky-tests/list-unhealthy-tests', {
      repo,
      org_url_slug: ORG,
      status: 'FLAKY',
      page_query: { page_size: 10 },
    });
    expect(flaky.body.tests.map((t) => t.name)).to.include('q_test');
  });

  it('a pull request whose failing test is known flaky merges after one re-test; the details name the test', async () => {
    await knownFlaky();
    ciFailingFirst('flaky_test');
    const pr = await submitOne();
    expect(pr.state).to.equal('merged');
    expect(retest(pr)?.detail).to.contain('known flaky: flaky_test');
    const results = await resultsOf(Harness.runIds(pr)[0]);
    expect(results).to.deep.include({ uploads: 1, runs: 2, failed: 1 });
    expect(results?.failedTests).to.have.length(1);
    expect(results?.failedTests[0]).to.deep.include({ name: 'flaky_test', classname: 'pkg.Suite', file: null, status: 'flaky', quarantined: false });
    expect(await resultsOf(Harness.runIds(pr)[1])).to.deep.equal({ uploads: 1, runs: 2, failed: 0, failedTests: [] });
    // The cost report counts the failed run as wasted by a flaky re-test, naming the test.
    const cost = await h.svc.post<{
      testRunsStarted: number;
      wasted: { byCause: { cause: string; runs: number; examples: { testRunId: string; detail: string | null }[] }[] };
    }>('/getQueueCostReport', ref);
    expect(cost.status, JSON.stringify(cost.body)).to.equal(200);
    expect(cost.body.testRunsStarted).to.equal(2);
    const flaky = cost.body.wasted.byCause.find((c) => c.cause === 'flaky_retest');
    expect(flaky?.runs).to.equal(1);
    expect(flaky?.examples[0]?.testRunId).to.equal(Harness.runIds(pr)[0]);
    expect(flaky?.examples[0]?.detail).to.contain('flaky_test');
  });

  it('a pull request with a real failure fails as before, the test named in the timeline', async () => {
    await knownFlaky();
    const ci = ciFailingFirst('real_test');
    const pr = await submitOne();
    expect(pr.state).to.equal('failed');
    expect(pr.timeline[0]).to.deep.include({ reason: 'test_run_required_status_failed' });
    expect(pr.timeline[0]!.detail).to.contain('failed tests not known as flaky: real_test');
    expect(retest(pr)).to.equal(undefined);
    expect(ci.runs).to.have.length(1);
    // Its failure in the merge queue made real_test flaky at once, but a run's own failures never
    // excuse it: the decision reads the status from before the run.
    const results = await resultsOf(Harness.runIds(pr)[0]);
    expect(results?.failedTests.map((t) => [t.name, t.status])).to.deep.equal([['real_test', 'flaky']]);
  });

  it('a batch whose only failure is flaky is tested again, not bisected', async () => {
    await knownFlaky();
    await h.configure({ batch: true, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 60 });
    const ci = ciFailingFirst('flaky_test');
    await h.pr(1);
    await h.pr(2);
    await h.submit(1);
    await h.submit(2);
    const prs = await h.finals([1, 2]);
    expect(prs.map((p) => p.state)).to.deep.equal(['merged', 'merged']);
    for (const p of prs) {
      expect(reasonsOf(p)).to.include('test_run_retried_known_flaky');
      expect(reasonsOf(p)).to.not.include('bisection_required');
    }
    expect(ci.runs.map((r) => r.verdict)).to.deep.equal(['failure', 'success']);
  });

  it('flakyRetries 0 restores the old behaviour: a known-flaky failure fails the pull request', async () => {
    await knownFlaky();
    await h.configure({ flakyRetries: 0 });
    ciFailingFirst('flaky_test');
    const pr = await submitOne();
    expect(pr.state).to.equal('failed');
    const runId = Harness.runIds(pr)[0]!;
    expect(pr.timeline[0]).to.deep.include({
      reason: 'test_run_required_status_failed',
      detail: `test run ${runId} failed and nothing ahead or behind explains it`,
    });
    expect(retest(pr)).to.equal(undefined);
  });

  /** The hosted CLI's path: createBundleUpload, then a PUT of the bundle (meta.json + the report). */
  async function uploadBundle(body: { sha: string; branch: string; junit: string }): Promise<number> {
    const created = await h.svc.post<{ url: string }>('/metrics/createBundleUpload', {
      repo,
      orgUrlSlug: ORG,
      clientVersion: 'trunk-analytics-cli cargo=0.10.0',
      remoteUrls: [],
      externalId: '',
      testCollectionShortId: null,
    });
    if (created.status !== 200) return created.status;
    const meta = {
      version: '1',
      cli_version: 'cargo=0.10.0',
      org: ORG,
      repo: {
        repo,
        repo_url: 'https://github.com/acme/widgets.git',
        repo_head_sha: body.sha,
        repo_head_branch: `refs/heads/${body.branch}`,
        repo_head_commit_epoch: 1_700_000_000,
      },
      bundle_upload_id: 'x',
      envs: {},
      file_sets: [
        { file_set_type: 'Junit', files: [{ original_path: 'junit.xml', original_path_rel: 'junit.xml', path: 'junit/0', owners: [] }], glob: '*.xml' },
      ],
      upload_time_epoch: Math.floor(Date.now() / 1000),
      variant: '',
    };
    const tar = await bundle([
      { name: 'meta.json', data: JSON.stringify(meta) },
      { name: 'junit/0', data: body.junit },
    ]);
    const res = await fetch(created.body.url, { method: 'PUT', body: tar, headers: { 'content-type': 'application/octet-stream' } });
    await res.arrayBuffer();
    return res.status === 202 ? 200 : res.status;
  }

  it("results sent as the hosted CLI's bundle are linked and used the same way", async () => {
    await knownFlaky();
    h.ci = startFakeCi({
      fx: h.fx,
      repo,
      context: 'ci/test',
      decide: (_files, { seen }) => (seen === 1 ? 'failure' : 'success'),
      postStatus: async (body) => (await h.svc.post('/setCommitStatus', body)).status,
      report: (_files, { seen }) => ({ junit: junit({ flaky_test: seen === 1 ? 'f' : 'p', ok_test: 'p' }) }),
      uploadReport: uploadBundle,
    });
    const pr = await submitOne();
    expect(pr.state).to.equal('merged');
    expect(retest(pr)?.detail).to.contain('known flaky: flaky_test');
    expect(await resultsOf(Harness.runIds(pr)[0])).to.deep.include({ uploads: 1, failed: 1 });
  });

  it('results uploaded after the failing status, within testResultsWaitSeconds, are used', async () => {
    await knownFlaky();
    await h.configure({ testResultsWaitSeconds: 600 });
    const ci = ciFailingFirst('flaky_test', { after: true });
    const pr = await submitOne();
    expect(pr.state).to.equal('merged');
    expect(retest(pr)?.detail).to.contain('known flaky: flaky_test');
    // CI records a run once its report is uploaded, after the status: the merge may come first.
    await waitFor('CI done with both runs', async () => (ci.runs.length >= 2 ? true : undefined));
    expect(ci.runs.map((r) => r.verdict)).to.deep.equal(['failure', 'success']);
  });
});
