// Detection end to end over HTTP with real reports: pass-on-retry within one upload and across
// uploads, broken on main, the PR impact count, failure clustering, infrastructure protection.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { ORG, REPO, call, failing, junit, sha, unhealthy, upload, uploadOk, type WireTest } from './flaky-support.js';

const HOUR = 3_600_000;

describe('flaky tests: detection', function () {
  let svc: TestService;
  const window = () => ({ start: new Date(Date.now() - 24 * HOUR), end: new Date(Date.now() + 60_000) });

  beforeEach(async () => {
    svc = await startTestService({ startWorkers: true });
  });
  afterEach(async () => {
    await svc.close();
  });

  it('a test that fails then passes on one commit of main becomes flaky, with the evidence as reason', async () => {
    const first = await uploadOk(svc, { commit_sha: 'abc1234' + '0'.repeat(33) }, ['trunk-cli_googletest_junit0_fail.xml']);
    expect(first.failed).to.equal(1);
    await uploadOk(svc, { commit_sha: 'abc1234' + '0'.repeat(33) }, ['trunk-cli_googletest_junit0_pass.xml']);

    const { tests, page } = await unhealthy(svc, 'FLAKY');
    expect(page).to.deep.include({ total_rows: 1, total_pages: 1, page_index: 0, next_page_token: '' });
    expect(tests).to.have.length(1);
    const t = tests[0]!;
    expect(t).to.deep.include({
      name: 'Hello',
      classname: 'HelloTest',
      parent: 'HelloTest',
      file_path: 'trunk/hello_world/cc/hello_test.cc',
      variant: '',
      quarantined: false,
    });
    expect(t.status.value).to.equal('flaky');
    expect(t.status.reason).to.equal('Failed and passed on the same commit abc1234 on main');
    expect(Date.parse(t.status.timestamp)).to.be.closeTo(Date.now(), 60_000);
    expect((await unhealthy(svc, 'BROKEN')).tests).to.deep.equal([]);
  });

  it("records each test's newest failure; a test stored without it learns it at its next evaluation; a quiet test that fails is evaluated", async () => {
    const stored = svc.ctx.db.collection<{ _id: string; name: string; status: { value: string }; lastEvidenceAt?: Date | null }>('flaky_test_cases');
    const evidence = async () => Object.fromEntries((await stored.find({})).map((t) => [t.name, t.lastEvidenceAt]));
    await uploadOk(svc, { commit_sha: sha(500) }, [{ name: 'r.xml', data: junit({ a: 'f', b: 'p' }) }]);
    const first = await evidence();
    expect(first.a).to.be.instanceOf(Date);
    expect(first.b).to.equal(null);

    // As a version before the field stored them: both are evaluated again and learn it from their counters.
    await stored.updateMany({}, { $unset: { lastEvidenceAt: '' } });
    await uploadOk(svc, { commit_sha: sha(501) }, [{ name: 'r.xml', data: junit({ a: 'p', b: 'p' }) }]);
    expect(await evidence()).to.deep.equal(first);

    // b is quiet (healthy, no failure in its window): its failure now is evaluated and recorded.
    for (let i = 0; i < 3; i++) await uploadOk(svc, { commit_sha: sha(502 + i) }, [{ name: 'r.xml', data: junit({ a: 'p', b: 'f' }) }]);
    const last = await evidence();
    expect(last.b).to.be.instanceOf(Date);
    expect((await stored.findOne({ name: 'b' }))?.status.value, '3 failures in 5 runs').to.equal('flaky');
    expect((await failing(svc, window().start, window().end)).tests.map((t) => t.name).sort()).to.deep.equal(['a', 'b']);
  });

  it('retries inside one report (gotestsum --rerun-fails, Surefire flakyFailure) are pass-on-retry on a PR', async () => {
    await uploadOk(svc, { branch: 'feature/login', pr_number: 42, commit_sha: sha(42) }, [
      'flake-factory_gotestsum_rerun-fails.xml',
      'enricomi_surefire_flaky-and-rerun.xml',
    ]);
    const { tests } = await unhealthy(svc, 'FLAKY');
    const reasons = Object.fromEntries(tests.map((t) => [t.name, t.status.reason]));
    expect(Object.keys(reasons).sort()).to.deep.equal(['TestPassEveryThirdExecution', 'failsAssertionOnlyFirstAttempt', 'throwsOnlyFirstAttempt']);
    for (const reason of Object.values(reasons)) expect(reason).to.equal(`Failed and passed on the same commit ${sha(42).slice(0, 7)} on PR #42`);
    // Tests failing on every attempt of a PR are not flaky (and PR failures do not make them broken).
    expect(tests.map((t) => t.name)).not.to.include('throwsAlways');
    expect((await unhealthy(svc, 'BROKEN')).tests).to.deep.equal([]);
    // …but they show up as failing, with the PR counted.
    const { tests: failingTests } = await failing(svc, window().start, window().end);
    const always = failingTests.find((t) => t.name === 'throwsAlways');
    expect(always?.pull_requests_impacted_last_7d).to.equal(1);
    expect(always?.failure_rate_last_24h).to.equal(1);
  });

  it('a test failing on every run of main becomes broken; its neighbour stays healthy', async () => {
    for (let i = 0; i < 5; i++) await uploadOk(svc, { commit_sha: sha(100 + i) }, ['go-junit-report_fail.xml']);
    const { tests } = await unhealthy(svc, 'BROKEN');
    expect(tests.map((t) => t.name)).to.deep.equal(['TestOne']);
    expect(tests[0]!.status.reason).to.match(/^Failure rate 100\.0% >= 80% over the last 24h on main \(5 of 5 runs failed\)$/);
    expect((await unhealthy(svc, 'FLAKY')).tests).to.deep.equal([]);

    const { tests: failingTests } = await failing(svc, window().start, window().end);
    expect(failingTests.map((t) => t.name)).to.deep.equal(['TestOne']);
    const f = failingTests[0]!;
    expect(f.failure_rate_last_7d).to.equal(1);
    expect(f.failure_rate_last_24h).to.equal(1);
    expect(f.pull_requests_impacted_last_7d).to.equal(0);
    expect(f.most_common_failures).to.have.length(1);
    // "Failed" says nothing; the summary is the first meaningful line of the failure text.
    expect(f.most_common_failures![0]).to.deep.include({ summary: 'main_test.go:6: Error message', occurrence_count: 5 });
  });

  it('a single failure on main marks a test flaky (failure-count monitor), rates are fractions', async () => {
    await uploadOk(svc, { commit_sha: sha(1) }, [{ name: 'a.xml', data: junit({ test_a: 'p', test_b: 'p' }) }]);
    await uploadOk(svc, { commit_sha: sha(2) }, [{ name: 'a.xml', data: junit({ test_a: 'p', test_b: 'f' }) }]);
    await uploadOk(svc, { commit_sha: sha(3) }, [{ name: 'a.xml', data: junit({ test_a: 'p', test_b: 'p' }) }]);
    const { tests } = await unhealthy(svc, 'FLAKY');
    expect(tests.map((t) => [t.name, t.status.reason])).to.deep.equal([['test_b', '1 failure in the last 24h on main']]);
    const { tests: failingTests } = await failing(svc, window().start, window().end);
    expect(failingTests).to.have.length(1);
    expect(failingTests[0]!.failure_rate_last_24h).to.be.closeTo(1 / 3, 1e-9);
  });

  it('clusters failure messages that differ only in volatile parts', async () => {
    const messages = [
      'Timeout after 5000ms waiting for http://10.0.0.12:8080/health at 2024-05-01T10:00:00Z',
      'Timeout after 3000ms waiting for http://10.0.0.99:8080/health at 2024-05-02T11:30:00Z',
      'AssertionError: expected 3 to equal 4',
    ];
    for (let i = 0; i < messages.length; i++) {
      await uploadOk(svc, { commit_sha: sha(10 + i), branch: 'feature/x' }, [{ name: 'a.xml', data: junit({ t: 'f' }, { message: () => messages[i]! }) }]);
    }
    const { tests } = await failing(svc, window().start, window().end);
    const mcf = tests[0]!.most_common_failures!;
    expect(mcf.map((m) => m.occurrence_count)).to.deep.equal([2, 1]);
    expect(mcf[0]!.summary).to.equal(messages[1]);
    expect(mcf[1]!.summary).to.equal(messages[2]);
  });

  it('infrastructure protection: an upload where most tests fail is stored but excluded', async () => {
    const tests = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`test_${String(i).padStart(2, '0')}`, i < 18 ? 'f' : 'p']));
    const body = await uploadOk(svc, { commit_sha: sha(5) }, [{ name: 'outage.xml', data: junit(tests) }]);
    expect(body.excluded_from_detection).to.equal(true);
    expect(body.warnings.map((w) => w.code)).to.include('infrastructure-failure');
    expect(body.failed).to.equal(18);
    expect((await unhealthy(svc, 'FLAKY')).tests).to.deep.equal([]);
    expect((await unhealthy(svc, 'BROKEN')).tests).to.deep.equal([]);
    expect((await failing(svc, window().start, window().end)).tests).to.deep.equal([]);
    // A retry of the outage on the same commit that passes is not pass-on-retry evidence either.
    await uploadOk(svc, { commit_sha: sha(5) }, [{ name: 'retry.xml', data: junit(Object.fromEntries(Object.keys(tests).map((n) => [n, 'p']))) }]);
    expect((await unhealthy(svc, 'FLAKY')).tests).to.deep.equal([]);
  });

  it('the threshold and minimum size are repository settings', async () => {
    await call(svc, '/flaky-tests/update-repo-settings', {
      repo: REPO,
      org_url_slug: ORG,
      detection: { infrastructure_failure: { enabled: false } },
    });
    const tests = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`test_${i}`, 'f']));
    const body = await uploadOk(svc, { commit_sha: sha(6) }, [{ name: 'a.xml', data: junit(tests) }]);
    expect(body.excluded_from_detection).to.equal(false);
    expect((await unhealthy(svc, 'FLAKY')).tests).to.have.length(20);
  });

  it('list-unhealthy-tests takes FLAKY or BROKEN only', async () => {
    await uploadOk(svc, {}, ['go-junit-report_fail.xml']);
    for (const status of ['HEALTHY', 'unknown', 3]) {
      const res = await svc.post<{ error: { code: string; details: { path: string }[] } }>('/flaky-tests/list-unhealthy-tests', {
        repo: REPO,
        org_url_slug: ORG,
        status,
        page_query: { page_size: 10 },
      });
      expect(res.status, String(status)).to.equal(400);
      expect(res.body.error.details[0]!.path).to.equal('/status');
    }
    const lower = await svc.post('/flaky-tests/list-unhealthy-tests', { repo: REPO, org_url_slug: ORG, status: 'flaky', page_query: { page_size: 10 } });
    expect(lower.status).to.equal(200);
  });

  it('get-test-details answers the failing-test shape; link-ticket-to-test-case attaches a ticket', async () => {
    const own = await startTestService({ startWorkers: true, env: { FLAKY_TICKET_URL_TEMPLATE: 'https://acme.atlassian.net/browse/{ticket}' } });
    try {
      await detailsAndTicket(own);
    } finally {
      await own.close();
    }
  });

  async function detailsAndTicket(svc: TestService): Promise<void> {
    await uploadOk(svc, {}, ['go-junit-report_fail.xml']);
    const { tests } = await unhealthy(svc, 'FLAKY');
    const id = tests[0]!.id;
    const linked = await call(svc, '/flaky-tests/link-ticket-to-test-case', { repo: REPO, test_case_id: id, external_ticket_id: 'KAN-123' });
    expect(linked).to.deep.equal({});
    const { test } = await call<{ test: WireTest }>(svc, '/flaky-tests/get-test-details', { repo: REPO, org_url_slug: ORG, test_id: id });
    expect(test.ticket).to.deep.equal({ html_url: 'https://acme.atlassian.net/browse/KAN-123' });
    expect(test.name).to.equal('TestOne');
    expect(test.most_common_failures![0]!.summary).to.equal('main_test.go:6: Error message');

    const missing = await svc.post<{ error: { code: string } }>('/flaky-tests/get-test-details', {
      repo: REPO,
      org_url_slug: ORG,
      test_id: '00000000-0000-5000-8000-000000000000',
    });
    expect(missing.status).to.equal(404);
    expect(missing.body.error.code).to.equal('test_not_found');
    const badTicket = await svc.post('/flaky-tests/link-ticket-to-test-case', {
      repo: REPO,
      test_case_id: '00000000-0000-5000-8000-000000000000',
      external_ticket_id: 'KAN-1',
    });
    expect(badTicket.status).to.equal(404);
  }

  it('link-ticket-to-test-case without a template accepts a URL and refuses a bare key', async () => {
    await uploadOk(svc, {}, ['go-junit-report_fail.xml']);
    const { tests } = await unhealthy(svc, 'FLAKY');
    const id = tests[0]!.id;
    const bare = await svc.post<{ error: { code: string } }>('/flaky-tests/link-ticket-to-test-case', {
      repo: REPO,
      test_case_id: id,
      external_ticket_id: 'KAN-9',
    });
    expect(bare.status).to.equal(400);
    expect(bare.body.error.code).to.equal('ticket_tracker_not_configured');
    await call(svc, '/flaky-tests/link-ticket-to-test-case', { repo: REPO, test_case_id: id, external_ticket_id: 'https://linear.app/acme/issue/ENG-7' });
    const after = await unhealthy(svc, 'FLAKY');
    expect(after.tests[0]!.ticket).to.deep.equal({ html_url: 'https://linear.app/acme/issue/ENG-7' });
    // A repository template overrides the (absent) service-wide one.
    await call(svc, '/flaky-tests/update-repo-settings', { repo: REPO, org_url_slug: ORG, ticket_url_template: 'https://linear.app/acme/issue/{ticket}' });
    await call(svc, '/flaky-tests/link-ticket-to-test-case', { repo: REPO, test_case_id: id, external_ticket_id: 'ENG-8' });
    expect((await unhealthy(svc, 'FLAKY')).tests[0]!.ticket).to.deep.equal({ html_url: 'https://linear.app/acme/issue/ENG-8' });
  });

  it('failures of a non-JUnit upload do not exist; an unknown repository is a 404', async () => {
    const res = await svc.post<{ error: { code: string } }>('/flaky-tests/list-unhealthy-tests', {
      repo: REPO,
      org_url_slug: ORG,
      status: 'FLAKY',
      page_query: { page_size: 10 },
    });
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('repository_not_found');
    const bad = await upload(svc, {}, [{ name: 'x.xml', data: '<html/>' }]);
    expect(bad.status).to.equal(400);
  });
});
