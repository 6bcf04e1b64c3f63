// The flaky-tests list API: pagination (order, tokens, every page field), request validation,
// the list-failing-tests window, and organisation / repository isolation.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { ORG, REPO, call, failing, junit, sha, upload, uploadOk, type WirePage, type WireTest } from './flaky-support.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface ErrorBody {
  error: { code: string; details: { path: string; message: string }[] };
}

describe('flaky tests: list API', function () {
  let svc: TestService;
  const end = () => new Date(Date.now() + 60_000);
  const start = () => new Date(Date.now() - DAY);

  before(async () => {
    svc = await startTestService({ startWorkers: true });
    // 25 failing tests and 5 passing ones on a PR branch (failing, but not flaky or broken).
    const tests = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`test_${String(i).padStart(2, '0')}`, i < 25 ? 'f' : 'p']));
    await call(svc, '/flaky-tests/update-repo-settings', { repo: REPO, org_url_slug: ORG, detection: { infrastructure_failure: { enabled: false } } });
    await uploadOk(svc, { branch: 'feature/pages', pr_number: 7, commit_sha: sha(7) }, [{ name: 'r.xml', data: junit(tests) }]);
  });
  after(async () => {
    await svc.close();
  });

  it('pages through list-failing-tests in test-id order with next, prev and last tokens', async () => {
    const seen: string[] = [];
    const pages: WirePage[] = [];
    // Tokens are bound to the window, so every call of one walk uses the same one.
    const s = start();
    const e = end();
    let token = '';
    for (let i = 0; i < 10; i++) {
      const r = await failing(svc, s, e, { page_size: 10, page_token: token });
      seen.push(...r.tests.map((t) => t.id));
      pages.push(r.page);
      token = r.page.next_page_token;
      if (!token) break;
    }
    expect(seen).to.have.length(25);
    expect(new Set(seen).size).to.equal(25);
    expect(seen).to.deep.equal([...seen].sort());
    expect(pages.map((p) => [p.page_index, p.total_rows, p.total_pages])).to.deep.equal([
      [0, 25, 3],
      [1, 25, 3],
      [2, 25, 3],
    ]);
    expect(pages[0]!.prev_page_token).to.equal('');
    expect(pages[2]!.next_page_token).to.equal('');
    for (const p of pages) expect(p.last_page_token).to.be.a('string').and.not.equal('');

    const last = await failing(svc, s, e, { page_size: 10, page_token: pages[0]!.last_page_token });
    expect(last.page.page_index).to.equal(2);
    expect(last.tests.map((t) => t.id)).to.deep.equal(seen.slice(20));

    const back = await failing(svc, s, e, { page_size: 10, page_token: pages[2]!.prev_page_token });
    expect(back.page.page_index).to.equal(1);
    expect(back.tests.map((t) => t.id)).to.deep.equal(seen.slice(10, 20));
  });

  it('every item carries the failing-test fields', async () => {
    const { tests } = await failing(svc, start(), end(), { page_size: 1 });
    const t: WireTest = tests[0]!;
    expect(t).to.include.keys(
      'id',
      'repository',
      'html_url',
      'name',
      'variant',
      'status',
      'most_common_failures',
      'failure_rate_last_7d',
      'failure_rate_last_24h',
      'codeowners',
      'pull_requests_impacted_last_7d',
      'quarantined',
    );
    expect(t.pull_requests_impacted_last_7d).to.equal(1);
    expect(t.status.value).to.equal('healthy');
    expect(t.html_url).to.contain(`/${ORG}/flaky-tests/test/${t.id}?repo=acme%2Fwidgets`);
  });

  it('excludes failures outside [start_time, end_time)', async () => {
    const later = await failing(svc, new Date(Date.now() + 30_000), new Date(Date.now() + DAY));
    expect(later.tests).to.deep.equal([]);
    expect(later.page).to.deep.equal({ total_rows: 0, total_pages: 0, next_page_token: '', prev_page_token: '', last_page_token: '', page_index: 0 });
    const before = await failing(svc, new Date(Date.now() - 3 * DAY), new Date(Date.now() - 2 * DAY));
    expect(before.tests).to.deep.equal([]);
    // A window ending exactly now-ish but starting after the runs is empty; one covering them is not.
    const tight = await failing(svc, new Date(Date.now() - 10 * 60_000), end());
    expect(tight.page.total_rows).to.equal(25);
  });

  it('refuses windows over 7 days, ending before they start, and malformed times', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ start_time: new Date(Date.now() - 8 * DAY).toISOString(), end_time: new Date().toISOString() }, '/end_time'],
      [{ start_time: new Date().toISOString(), end_time: new Date(Date.now() - HOUR).toISOString() }, '/end_time'],
      [{ start_time: new Date().toISOString(), end_time: new Date().toISOString() }, '/end_time'],
      [{ start_time: 'yesterday', end_time: new Date().toISOString() }, '/start_time'],
      [{ start_time: '2024-05-01T00:00:00', end_time: new Date().toISOString() }, '/start_time'],
    ];
    for (const [times, path] of cases) {
      const res = await svc.post<ErrorBody>('/flaky-tests/list-failing-tests', { repo: REPO, org_url_slug: ORG, page_query: { page_size: 10 }, ...times });
      expect(res.status, JSON.stringify(times)).to.equal(400);
      expect(res.body.error.details[0]!.path, JSON.stringify(times)).to.equal(path);
    }
    const exactly7 = await svc.post('/flaky-tests/list-failing-tests', {
      repo: REPO,
      org_url_slug: ORG,
      page_query: { page_size: 10 },
      start_time: new Date(Date.now() - 7 * DAY).toISOString(),
      end_time: new Date(Date.now()).toISOString(),
    });
    expect(exactly7.status).to.equal(200);
  });

  it('page_size must be 1–100 and page_query is required', async () => {
    for (const page_query of [{ page_size: 0 }, { page_size: 101 }, { page_size: 1.5 }, { page_size: '10' }, {}, { page_size: 10, extra: 1 }]) {
      const res = await svc.post<ErrorBody>('/flaky-tests/list-quarantined-tests', { repo: REPO, org_url_slug: ORG, page_query });
      expect(res.status, JSON.stringify(page_query)).to.equal(400);
      expect(res.body.error.details[0]!.path).to.match(/^\/page_query/);
    }
    const missing = await svc.post<ErrorBody>('/flaky-tests/list-quarantined-tests', { repo: REPO, org_url_slug: ORG });
    expect(missing.status).to.equal(400);
    expect(missing.body.error.details[0]!.path).to.equal('/page_query');
  });

  it('page tokens cannot be forged or replayed against another list, filter or repository', async () => {
    const s = start();
    const e = end();
    const first = await failing(svc, s, e, { page_size: 10 });
    const token = first.page.next_page_token;
    // The genuine token works.
    expect((await failing(svc, s, e, { page_size: 10, page_token: token })).page.page_index).to.equal(1);
    const [payload, mac] = token.split('.');
    const forged = `${Buffer.from(JSON.stringify({ k: 'o', i: 0, o: 0 })).toString('base64url')}.${mac}`;
    await uploadOk(svc, { repo: { ...REPO, name: 'other' }, commit_sha: sha(9) }, [{ name: 'r.xml', data: junit({ x: 'f' }) }]);
    const attempts: { path: string; token: string; times?: boolean; start?: Date; repo?: typeof REPO }[] = [
      { path: '/flaky-tests/list-failing-tests', token: forged, times: true },
      { path: '/flaky-tests/list-failing-tests', token: `${payload}.AAAA`, times: true },
      { path: '/flaky-tests/list-failing-tests', token: 'garbage', times: true },
      { path: '/flaky-tests/list-failing-tests', token, times: true, start: new Date(s.getTime() - 1000) },
      { path: '/flaky-tests/list-quarantined-tests', token },
      { path: '/flaky-tests/list-failing-tests', token, times: true, repo: { ...REPO, name: 'other' } },
    ];
    for (const a of attempts) {
      const body: Record<string, unknown> = { repo: a.repo ?? REPO, org_url_slug: ORG, page_query: { page_size: 10, page_token: a.token } };
      if (a.times) Object.assign(body, { start_time: (a.start ?? s).toISOString(), end_time: e.toISOString() });
      const res = await svc.post<ErrorBody>(a.path, body);
      expect(res.status, JSON.stringify(a)).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_page_token');
      expect(res.body.error.details[0]!.path).to.equal('/page_query/page_token');
    }
  });

  it("org_url_slug must be the token's organisation; other organisations see nothing", async () => {
    const wrongSlug = await svc.post<ErrorBody>('/flaky-tests/list-unhealthy-tests', {
      repo: REPO,
      org_url_slug: 'acme-other',
      status: 'FLAKY',
      page_query: { page_size: 10 },
    });
    expect(wrongSlug.status).to.equal(404);

    const other = await svc.addOrg('acme-other');
    // Its own slug, the same repository name: no data (404), never the first organisation's.
    const own = await svc.post<ErrorBody>(
      '/flaky-tests/list-failing-tests',
      {
        repo: REPO,
        org_url_slug: 'acme-other',
        start_time: start().toISOString(),
        end_time: end().toISOString(),
        page_query: { page_size: 10 },
      },
      { token: other.token },
    );
    expect(own.status).to.equal(404);
    expect(own.body.error.code).to.equal('repository_not_found');
    // The first organisation's slug with the second's token: 404 as well.
    const theirs = await svc.post<ErrorBody>(
      '/flaky-tests/list-failing-tests',
      {
        repo: REPO,
        org_url_slug: ORG,
        start_time: start().toISOString(),
        end_time: end().toISOString(),
        page_query: { page_size: 10 },
      },
      { token: other.token },
    );
    expect(theirs.status).to.equal(404);
    expect(theirs.body.error.code).to.equal('organization_not_found');
    // Once it has data of its own, a page token of the first organisation is refused.
    const s = start();
    const e = end();
    const first = await failing(svc, s, e, { page_size: 10 });
    const up = await upload(svc, { org_url_slug: 'acme-other', commit_sha: sha(11) }, [{ name: 'r.xml', data: junit({ x: 'f' }) }], { token: other.token });
    expect(up.status).to.equal(200);
    const replay = await svc.post<ErrorBody>(
      '/flaky-tests/list-failing-tests',
      {
        repo: REPO,
        org_url_slug: 'acme-other',
        start_time: s.toISOString(),
        end_time: e.toISOString(),
        page_query: { page_size: 10, page_token: first.page.next_page_token },
      },
      { token: other.token },
    );
    expect(replay.status).to.equal(400);
    expect(replay.body.error.code).to.equal('invalid_page_token');
    const mine = await failing(svc, s, e, { page_size: 100 });
    expect(mine.tests.map((t) => t.name)).not.to.include('x');
    // No token at all: 401.
    const anonymous = await svc.post(
      '/flaky-tests/list-unhealthy-tests',
      { repo: REPO, org_url_slug: ORG, status: 'FLAKY', page_query: { page_size: 10 } },
      { token: null },
    );
    expect(anonymous.status).to.equal(401);
  });

  it('strings in filters are strings: operators are 400s', async () => {
    const res = await svc.post<ErrorBody>('/flaky-tests/list-unhealthy-tests', {
      repo: { ...REPO, name: { $ne: '' } },
      org_url_slug: ORG,
      status: 'FLAKY',
      page_query: { page_size: 10 },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error.details[0]!.path).to.equal('/repo/name');
    const slug = await svc.post<ErrorBody>('/flaky-tests/list-unhealthy-tests', {
      repo: REPO,
      org_url_slug: { $gt: '' },
      status: 'FLAKY',
      page_query: { page_size: 10 },
    });
    expect(slug.status).to.equal(400);
  });
});
