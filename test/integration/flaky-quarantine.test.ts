// Quarantine over HTTP: repository settings, per-test overrides with their audit trail,
// list-quarantined-tests, the `quarantined` flag, and the CLI's getQuarantineConfig.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { expectOpenApiResponse } from '../helpers/openapi.js';
import { ORG, REPO, call, junit, quarantineConfig, sha, unhealthy, updateSettings, uploadOk } from './flaky-support.js';

interface QuarantinedItem {
  name: string;
  parent: string | null;
  file: string | null;
  classname: string | null;
  status: string;
  quarantine_setting: string;
  quarantined_at: string;
  quarantined_by: string | null;
  expires_at: string | null;
  status_last_updated_at: string;
  test_case_id: string;
  variant: string;
  codeowners: string[];
}

interface OverrideBody {
  test_id: string;
  override: string;
  reason: string | null;
  updated_by: string | null;
  expires_at: string | null;
  released_at: string | null;
  quarantined: boolean;
  quarantining_enabled: boolean;
  history: { from: string; to: string; reason: string; actor: string }[];
}

describe('flaky tests: quarantine', function () {
  let svc: TestService;
  let ids: Record<string, string>;

  const quarantinedList = async () => {
    const body = await call<{ quarantined_tests: QuarantinedItem[] }>(svc, '/flaky-tests/list-quarantined-tests', {
      repo: REPO,
      org_url_slug: ORG,
      page_query: { page_size: 100 },
    });
    return body.quarantined_tests;
  };
  const setOverride = (name: string, override: string, reason = 'because') =>
    svc.post<OverrideBody>('/flaky-tests/set-quarantine-override', { repo: REPO, org_url_slug: ORG, test_id: ids[name], override, reason, actor: 'alice' });

  beforeEach(async () => {
    svc = await startTestService({ startWorkers: true });
    // flaky_one: fails then passes on one commit; broken_one: fails on every run of main; ok_one: passes.
    for (let i = 0; i < 5; i++) {
      await uploadOk(svc, { commit_sha: sha(i) }, [{ name: 'r.xml', data: junit({ broken_one: 'f', flaky_one: i === 0 ? 'fp' : 'p', ok_one: 'p' }) }]);
    }
    ids = {};
    for (const status of ['FLAKY', 'BROKEN'] as const) for (const t of (await unhealthy(svc, status)).tests) ids[t.name] = t.id;
    const all = await svc.post<{ tests: { id: string; name: string }[] }>('/flaky-tests/list-failing-tests', {
      repo: REPO,
      org_url_slug: ORG,
      start_time: new Date(Date.now() - 3_600_000).toISOString(),
      end_time: new Date(Date.now() + 60_000).toISOString(),
      page_query: { page_size: 100 },
    });
    for (const t of all.body.tests) ids[t.name] = t.id;
    expect(Object.keys(ids).sort()).to.deep.equal(['broken_one', 'flaky_one']);
  });
  afterEach(async () => {
    await svc.close();
  });

  it('quarantining is off by default: getQuarantineConfig says disabled, nothing is quarantined', async () => {
    expect(await quarantineConfig(svc)).to.deep.equal({ isDisabled: true, testIds: [] });
    expect(await quarantinedList()).to.deep.equal([]);
    expect((await unhealthy(svc, 'FLAKY')).tests.every((t) => !t.quarantined)).to.equal(true);
    const settings = await call<Record<string, unknown>>(svc, '/flaky-tests/get-repo-settings', { repo: REPO, org_url_slug: ORG });
    expect(settings.quarantine).to.deep.equal({ enabled: false, auto_quarantine: false, release_after_clean_days: 7 });
    expect(settings.known).to.equal(true);
  });

  it('auto-quarantine quarantines flaky and broken tests; overrides win; getQuarantineConfig follows', async () => {
    await updateSettings(svc, { quarantine: { enabled: true, auto_quarantine: true }, reason: 'turn it on' });
    let config = await quarantineConfig(svc);
    expect(config.isDisabled).to.equal(false);
    expect(config.testIds.sort()).to.deep.equal([ids.broken_one, ids.flaky_one].sort());

    const list = await quarantinedList();
    expect(list.map((q) => [q.name, q.status, q.quarantine_setting])).to.deep.equal(
      [
        ['broken_one', 'BROKEN', 'AUTO_QUARANTINE'],
        ['flaky_one', 'FLAKY', 'AUTO_QUARANTINE'],
      ].sort((a, b) => (ids[a[0]!]! < ids[b[0]!]! ? -1 : 1)),
    );
    expect(list[0]!.quarantined_at).to.equal(list[0]!.status_last_updated_at);
    expect((await unhealthy(svc, 'FLAKY')).tests[0]!.quarantined).to.equal(true);

    // NEVER_QUARANTINE takes a flaky test out even with auto-quarantine on.
    const never = await setOverride('flaky_one', 'NEVER_QUARANTINE', 'we want to see it fail');
    expect(never.status).to.equal(200);
    expect(never.body).to.deep.include({ override: 'NEVER_QUARANTINE', reason: 'we want to see it fail', quarantined: false });
    config = await quarantineConfig(svc);
    expect(config.testIds).to.deep.equal([ids.broken_one]);

    // Back to automatic, with the whole trail kept.
    const cleared = await setOverride('flaky_one', 'unspecified', 'ok, automatic again');
    expect(cleared.body.override).to.equal('UNSPECIFIED');
    expect(cleared.body.history.map((h) => [h.from, h.to, h.reason])).to.deep.equal([
      ['NEVER_QUARANTINE', 'UNSPECIFIED', 'ok, automatic again'],
      ['UNSPECIFIED', 'NEVER_QUARANTINE', 'we want to see it fail'],
    ]);
    expect(cleared.body.history[0]!.actor).to.match(/^alice \(token:/);
    expect((await quarantineConfig(svc)).testIds.sort()).to.deep.equal([ids.broken_one, ids.flaky_one].sort());
  });

  it('an override with expires_at counts until then, shows who set it, and the refresh job falls back to automatic after it', async () => {
    await updateSettings(svc, { quarantine: { enabled: true, auto_quarantine: false }, reason: 'on' });
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const set = await svc.post<OverrideBody>('/flaky-tests/set-quarantine-override', {
      repo: REPO,
      org_url_slug: ORG,
      test_id: ids.flaky_one,
      override: 'ALWAYS_QUARANTINE',
      reason: 'until the fix lands',
      actor: 'alice',
      expires_at: expiresAt,
    });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    expect(set.body).to.deep.include({ override: 'ALWAYS_QUARANTINE', expires_at: expiresAt, quarantined: true, released_at: null });
    expect(set.body.updated_by).to.match(/^alice \(token:/);
    const listed = (await quarantinedList()).find((q) => q.name === 'flaky_one')!;
    expect([listed.quarantine_setting, listed.expires_at]).to.deep.equal(['ALWAYS_QUARANTINE', expiresAt]);
    expect(listed.quarantined_by).to.match(/^alice \(token:/);

    // Nothing changes before the end; after it the job clears the override, recorded as openmq's.
    const quarantine = svc.ctx.flakyTests.services.quarantine;
    expect(await quarantine.applyTimeRules(new Date())).to.deep.equal({ expired: 0, released: 0, requarantined: 0 });
    expect(await quarantine.applyTimeRules(new Date(Date.now() + 2 * 3_600_000))).to.deep.equal({ expired: 1, released: 0, requarantined: 0 });
    const after = await svc.post<OverrideBody>('/flaky-tests/get-quarantine-override', { repo: REPO, org_url_slug: ORG, test_id: ids.flaky_one });
    expect(after.body).to.deep.include({ override: 'UNSPECIFIED', expires_at: null, quarantined: false });
    expect(after.body.history[0]).to.deep.include({ from: 'ALWAYS_QUARANTINE', to: 'UNSPECIFIED', actor: 'openmq' });
    expect(after.body.history[0]!.reason).to.contain('expired');
    expect(await quarantinedList()).to.deep.equal([]);
  });

  it('an automatic quarantine is released after release_after_clean_days without a failure, and quarantined again by a new failure', async () => {
    const settings = await updateSettings(svc, { quarantine: { enabled: true, auto_quarantine: true, release_after_clean_days: 3 }, reason: 'on' });
    expect(settings.quarantine).to.deep.equal({ enabled: true, auto_quarantine: true, release_after_clean_days: 3 });
    const quarantine = svc.ctx.flakyTests.services.quarantine;
    expect((await quarantinedList()).map((q) => q.name).sort()).to.deep.equal(['broken_one', 'flaky_one']);
    // Two clean days are not enough; four are.
    expect(await quarantine.applyTimeRules(new Date(Date.now() + 2 * 86_400_000))).to.deep.include({ released: 0 });
    expect(await quarantine.applyTimeRules(new Date(Date.now() + 4 * 86_400_000))).to.deep.include({ released: 2 });
    expect(await quarantinedList()).to.deep.equal([]);
    expect((await quarantineConfig(svc)).testIds).to.deep.equal([]);
    const released = await svc.post<OverrideBody>('/flaky-tests/get-quarantine-override', { repo: REPO, org_url_slug: ORG, test_id: ids.flaky_one });
    expect(released.body.quarantined).to.equal(false);
    expect(released.body.released_at).to.be.a('string');
    expect(released.body.history[0]!.reason).to.contain('3 days without a failure');

    // flaky_one fails again: the next refresh quarantines it again; broken_one stays released.
    await uploadOk(svc, { commit_sha: sha(9) }, [{ name: 'r.xml', data: junit({ flaky_one: 'f', ok_one: 'p' }) }]);
    expect(await quarantine.applyTimeRules(new Date())).to.deep.equal({ expired: 0, released: 0, requarantined: 1 });
    expect((await quarantinedList()).map((q) => q.name)).to.deep.equal(['flaky_one']);
  });

  it('refuses an expiry in the past, an expiry without an override, and release days out of range', async () => {
    await updateSettings(svc, { quarantine: { enabled: true }, reason: 'on' });
    const body = { repo: REPO, org_url_slug: ORG, test_id: ids.flaky_one, reason: 'r' };
    const past = await svc.post<{ error: { code: string } }>('/flaky-tests/set-quarantine-override', {
      ...body,
      override: 'ALWAYS_QUARANTINE',
      expires_at: '2020-01-01T00:00:00Z',
    });
    expect([past.status, past.body.error.code]).to.deep.equal([400, 'invalid_expires_at']);
    const none = await svc.post<{ error: { code: string } }>('/flaky-tests/set-quarantine-override', {
      ...body,
      override: 'UNSPECIFIED',
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    });
    expect([none.status, none.body.error.code]).to.deep.equal([400, 'invalid_expires_at']);
    const bad = await svc.post('/flaky-tests/update-repo-settings', {
      repo: REPO,
      org_url_slug: ORG,
      quarantine: { release_after_clean_days: 91 },
      reason: 'r',
    });
    expect(bad.status).to.equal(400);
  });

  it('ALWAYS_QUARANTINE quarantines any test once quarantining is on, without auto-quarantine', async () => {
    const always = await setOverride('broken_one', 'ALWAYS_QUARANTINE', 'known outage of the payment sandbox');
    expect(always.body).to.deep.include({ override: 'ALWAYS_QUARANTINE', quarantined: false, quarantining_enabled: false });
    expect(await quarantineConfig(svc)).to.deep.equal({ isDisabled: true, testIds: [] });

    await updateSettings(svc, { quarantine: { enabled: true } });
    expect(await quarantineConfig(svc)).to.deep.equal({ isDisabled: false, testIds: [ids.broken_one] });
    const list = await quarantinedList();
    expect(list).to.have.length(1);
    expect(list[0]).to.deep.include({
      name: 'broken_one',
      status: 'BROKEN',
      quarantine_setting: 'ALWAYS_QUARANTINE',
      classname: 'pkg.Suite',
      parent: 'suite',
      file: null,
      variant: '',
    });
    const got = await svc.post<OverrideBody>('/flaky-tests/get-quarantine-override', { repo: REPO, org_url_slug: ORG, test_id: ids.broken_one });
    expect(got.body.quarantined).to.equal(true);
    expect(list[0]!.quarantined_at).to.equal((got.body as unknown as { updated_at: string }).updated_at);

    await updateSettings(svc, { quarantine: { enabled: false } });
    expect(await quarantineConfig(svc)).to.deep.equal({ isDisabled: true, testIds: [] });
    expect(await quarantinedList()).to.deep.equal([]);
  });

  it('validates overrides and settings', async () => {
    const bad = await setOverride('flaky_one', 'SOMETIMES');
    expect(bad.status).to.equal(400);
    const noReason = await svc.post('/flaky-tests/set-quarantine-override', {
      repo: REPO,
      org_url_slug: ORG,
      test_id: ids.flaky_one,
      override: 'ALWAYS_QUARANTINE',
    });
    expect(noReason.status).to.equal(400);
    const unknown = await svc.post<{ error: { code: string } }>('/flaky-tests/set-quarantine-override', {
      repo: REPO,
      org_url_slug: ORG,
      test_id: '11111111-1111-5111-8111-111111111111',
      override: 'ALWAYS_QUARANTINE',
      reason: 'x',
    });
    expect(unknown.status).to.equal(404);
    const hysteresis = await svc.post<{ error: { details: { path: string }[] } }>('/flaky-tests/update-repo-settings', {
      repo: REPO,
      org_url_slug: ORG,
      detection: { failure_rate: [{ id: 'r', classification: 'broken', activation_threshold: 0.5, resolution_threshold: 0.7, window_hours: 6 }] },
    });
    expect(hysteresis.status).to.equal(400);
    expect(hysteresis.body.error.details[0]!.path).to.equal('/detection/failure_rate/0/resolution_threshold');
    const template = await svc.post('/flaky-tests/update-repo-settings', { repo: REPO, org_url_slug: ORG, ticket_url_template: 'ftp://x/{ticket}' });
    expect(template.status).to.equal(400);
    const otherOrg = await svc.post('/flaky-tests/update-repo-settings', { repo: REPO, org_url_slug: 'nope', quarantine: { enabled: true } });
    expect(otherOrg.status).to.equal(404);
  });

  it('a changed detection configuration re-evaluates every test on the next read', async () => {
    expect((await unhealthy(svc, 'BROKEN')).tests.map((t) => t.name)).to.deep.equal(['broken_one']);
    // Only pass-on-retry, no failure-rate or failure-count monitors: broken_one is healthy again.
    const settings = await updateSettings(svc, { detection: { failure_rate: [], failure_count: [] } });
    expect((settings.detection as { failure_rate: unknown[] }).failure_rate).to.deep.equal([]);
    expect((await unhealthy(svc, 'BROKEN')).tests).to.deep.equal([]);
    const flaky = (await unhealthy(svc, 'FLAKY')).tests;
    expect(flaky.map((t) => t.name)).to.deep.equal(['flaky_one']);
    // A stricter failure-rate monitor on main makes it flaky again.
    await updateSettings(svc, {
      detection: {
        failure_rate: [
          { id: 'any-failure', classification: 'flaky', activation_threshold: 0.1, window_hours: 24, min_sample_size: 2, branch_classes: ['main'] },
        ],
      },
    });
    const names = (await unhealthy(svc, 'FLAKY')).tests.map((t) => t.name).sort();
    expect(names).to.deep.equal(['broken_one', 'flaky_one']);
  });

  it("getQuarantineConfig tolerates the CLI's extra fields and checks the organisation", async () => {
    await updateSettings(svc, { quarantine: { enabled: true, auto_quarantine: true } });
    const res = await svc.post<{ isDisabled: boolean; testIds: string[] }>('/metrics/getQuarantineConfig', {
      repo: REPO,
      remoteUrls: ['git@github.com:acme/widgets.git'],
      orgUrlSlug: ORG,
      testIdentifiers: [
        {
          name: 'flaky_one',
          parentName: 'suite',
          className: 'pkg.Suite',
          file: '',
          id: ids.flaky_one,
          timestamp_millis: 1,
          is_quarantined: false,
          failure_message: 'x',
          variant: '',
        },
      ],
    });
    expect(res.status).to.equal(200);
    expect(res.body.testIds).to.include(ids.flaky_one);
    const wrongOrg = await svc.post('/metrics/getQuarantineConfig', { repo: REPO, orgUrlSlug: 'other', testIdentifiers: [] });
    expect(wrongOrg.status).to.equal(404);
    const unknownRepo = await svc.post('/metrics/getQuarantineConfig', { repo: { ...REPO, name: 'new' }, orgUrlSlug: ORG, testIdentifiers: [] });
    expect(unknownRepo.body).to.deep.equal({ isDisabled: true, testIds: [] });
    expectOpenApiResponse('/flaky-tests/list-quarantined-tests', {
      quarantined_tests: await quarantinedList(),
      page: { total_rows: 2, total_pages: 1, next_page_token: '', prev_page_token: '', last_page_token: 'x', page_index: 0 },
    });
  });
});
