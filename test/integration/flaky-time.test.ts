// Time in the flaky-tests pipeline, driven by a fake clock through the services (no HTTP): statuses
// decay when their evidence ages out, exactly when it does; upload URLs expire; retention dates.
import { expect } from 'chai';
import { openDatabase } from '../../shared/platform/database/open-database.js';
import { createAccountsStore } from '../../shared/platform/accounts/accounts-module.js';
import type { Database } from '../../shared/platform/database/collection.js';
import { ensureIndexes } from '../../shared/platform/database/ensure-indexes.js';
import { createFlakyStore, type FlakyStore } from '../../shared/flaky-tests/store/flaky-store.js';
import type { FlakyServices } from '../../shared/flaky-tests/services/flaky-services.js';
import { createInlineFlakyServices, ingestReport } from '../../scripts/lib/inline-flaky-services.js';
import { DEFAULT_FLAKY_SETTINGS } from '../../shared/flaky-tests/services/flaky-settings.js';
import type { OperatorActor } from '../../shared/platform/accounts/actor.js';
import { createLogger } from '../../shared/platform/logging.js';
import { junit, REPO, ORG, sha } from './flaky-support.js';
import type { UploadMeta } from '../../shared/flaky-tests/domain/model.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-03-02T10:15:00.000Z');

describe('flaky tests: time', function () {
  let db: Database;
  let store: FlakyStore;
  let services: FlakyServices;
  let orgId: string;
  let now: number;

  beforeEach(async () => {
    db = await openDatabase({});
    const core = createAccountsStore(db);
    store = createFlakyStore(db);
    await ensureIndexes(core, store);
    orgId = (await core.orgs.ensure(ORG)).id;
    now = T0;
    services = createInlineFlakyServices({
      store,
      orgs: core.orgs,
      audit: core.audit,
      settings: { ...DEFAULT_FLAKY_SETTINGS },
      logger: createLogger('silent'),
      now: () => new Date(now),
    });
  });
  afterEach(async () => {
    await db.close();
  });

  const ingest = async (meta: Partial<UploadMeta>, tests: Record<string, string>) =>
    ingestReport(
      services,
      orgId,
      {
        repo: REPO,
        orgUrlSlug: ORG,
        sha: sha(1),
        branch: 'main',
        prNumber: null,
        variant: '',
        jobName: null,
        jobUrl: null,
        ciAttempt: null,
        startedAt: null,
        ...meta,
      },
      'r.xml',
      junit(tests),
    );
  // Reads never write: the flaky-refresh job applies what time changes, here run at each read.
  const list = async (status: 'flaky' | 'broken') => {
    await services.detection.refreshAllDue(new Date(now));
    return (await services.queries.listUnhealthy(orgId, { orgUrlSlug: ORG, repo: REPO, status, pageSize: 100 })).items.map((v) => v.test);
  };

  it('pass-on-retry resolves exactly `recovery_days` after the last evidence', async () => {
    await ingest({ branch: 'feature/a', prNumber: 5, sha: sha(5) }, { t: 'fp' });
    expect((await list('flaky')).map((t) => t.status.reason)).to.deep.equal([`Failed and passed on the same commit ${sha(5).slice(0, 7)} on PR #5`]);

    now = T0 + 7 * DAY - 1;
    expect(await list('flaky')).to.have.length(1);
    now = T0 + 9 * DAY;
    expect(await list('flaky')).to.deep.equal([]);
    const all = await store.tests.idsWithStatus((await store.repos.find(orgId, REPO))!.id, ['healthy']);
    const [healthy] = await store.tests.findByIds(all);
    expect(healthy!.status.value).to.equal('healthy');
    expect(healthy!.status.reason).to.equal('Recovered: No pass-on-retry evidence for 7 days');
    expect(healthy!.status.timestamp.toISOString()).to.equal(new Date(T0 + 7 * DAY).toISOString());
    expect(healthy!.statusHistory.map((c) => [c.from, c.to])).to.deep.equal([
      ['healthy', 'flaky'],
      ['flaky', 'healthy'],
    ]);
    expect(healthy!.reevaluateAt).to.equal(null);
  });

  it('new evidence on another commit extends the flaky period', async () => {
    await ingest({ branch: 'feature/a', sha: sha(5) }, { t: 'fp' });
    now = T0 + 5 * DAY;
    await ingest({ branch: 'feature/b', sha: sha(6) }, { t: 'pf' });
    now = T0 + 11 * DAY;
    const [t] = await list('flaky');
    expect(t?.status.reason).to.equal(`Failed and passed on the same commit ${sha(6).slice(0, 7)} on feature/b (2 commits in the last 7 days)`);
    now = T0 + 12 * DAY + 1;
    expect(await list('flaky')).to.deep.equal([]);
  });

  it('a retry arriving days later on the same commit is still pass-on-retry', async () => {
    await ingest({ branch: 'main', sha: sha(9) }, { t: 'f', u: 'p' });
    now = T0 + 3 * DAY;
    await ingest({ branch: 'main', sha: sha(9) }, { t: 'p', u: 'p' });
    const [t] = await list('flaky');
    expect(t?.name).to.equal('t');
    expect(t?.status.reason).to.equal(`Failed and passed on the same commit ${sha(9).slice(0, 7)} on main`);
    // Flaky since the failure on main (failure-count monitor), three days before the retry.
    expect(t?.status.timestamp.toISOString()).to.equal(new Date(T0).toISOString());
  });

  it('the failure-count monitor resolves 7 days after the last failure on main', async () => {
    await ingest({}, { t: 'f', u: 'p' });
    expect((await list('flaky')).map((t) => t.status.reason)).to.deep.equal(['1 failure in the last 24h on main']);
    now = T0 + 2 * DAY;
    await ingest({ sha: sha(2) }, { t: 'p', u: 'p' });
    expect((await list('flaky')).map((t) => t.status.reason)).to.deep.equal(['1 failure in the last 24h on main']);
    now = T0 + 7 * DAY + 1;
    expect(await list('flaky')).to.deep.equal([]);
  });

  it('broken holds while the sample is too small, then resolves by rate or stale timeout', async () => {
    for (let i = 0; i < 5; i++) {
      now = T0 + i * 60_000;
      await ingest({ sha: sha(20 + i) }, { t: 'f' });
    }
    expect((await list('broken')).map((t) => t.name)).to.deep.equal(['t']);
    // The failures leave the 24h window: fewer than 5 runs, so the state holds.
    now = T0 + 2 * DAY;
    expect((await list('broken')).map((t) => t.name)).to.deep.equal(['t']);
    // Passing runs bring the rate under the 50% resolution threshold.
    for (let i = 0; i < 5; i++) await ingest({ sha: sha(30 + i) }, { t: 'p' });
    expect(await list('broken')).to.deep.equal([]);
    // Still flaky by the failure-count monitor (last failure < 7 days ago).
    expect((await list('flaky')).map((t) => t.name)).to.deep.equal(['t']);
  });

  it('an idle broken test resolves after the stale timeout', async () => {
    for (let i = 0; i < 5; i++) await ingest({ sha: sha(40 + i) }, { t: 'f' });
    expect((await list('broken')).map((t) => t.name)).to.deep.equal(['t']);
    now = T0 + 7 * DAY + HOUR;
    expect(await list('broken')).to.deep.equal([]);
    expect(await list('flaky')).to.deep.equal([]);
  });

  it('rates are over the last 7 days and 24 hours, relative to now', async () => {
    await ingest({ sha: sha(50) }, { t: 'f' });
    now = T0 + 2 * DAY;
    await ingest({ sha: sha(51) }, { t: 'p' });
    const view = await services.queries.details(orgId, { orgUrlSlug: ORG, repo: REPO, testId: (await list('flaky'))[0]!.testId });
    expect(view.metrics.failureRateLast7d).to.equal(0.5);
    expect(view.metrics.failureRateLast24h).to.equal(0);
  });

  it('stores runs, counters and tests with the retention period as expiry', async () => {
    const result = await ingest({}, { t: 'f' });
    const upload = await store.uploads.findById(result.uploadId);
    expect(upload!.expiresAt.getTime()).to.equal(T0 + 45 * DAY);
    const repo = (await store.repos.find(orgId, REPO))!;
    const buckets = await store.buckets.forCases([...(await store.tests.idsWithStatus(repo.id, ['flaky']))], new Date(T0 - DAY), new Date(now));
    expect([...buckets.values()].flat()).to.have.length(1);
  });

  it('upload URLs stop working when they expire', async () => {
    const created = await services.bundles.create(orgId, { orgUrlSlug: ORG, repo: REPO, clientVersion: null }, 'http://localhost');
    expect(created.expiresAt.getTime()).to.equal(T0 + 3600_000);
    const key = new URL(created.url).searchParams.get('key') ?? '';
    now = T0 + 3600_000;
    const err = await services.bundles.receive(created.id, key, (async function* () {})()).catch((e: unknown) => e);
    expect((err as { code?: string }).code).to.equal('upload_url_not_found');
    expect(await store.bundleUploads.claim(created.id, key, new Date(T0))).to.not.equal(null);
  });

  it('an override whose expires_at passed is gone at once for every read: what CI asks, the override, the lists', async () => {
    const admin: OperatorActor = { kind: 'operator', orgId, name: 'flaky-time test' };
    await services.repoSettings.update(admin, { orgUrlSlug: ORG, repo: REPO, quarantine: { enabled: true, autoQuarantine: true }, reason: null });
    await ingest({}, { pinned: 'p', flaky: 'f', other: 'p' });
    const id = async (name: string) =>
      (await store.tests.findByIds(await store.tests.idsWithStatus((await store.repos.find(orgId, REPO))!.id, ['healthy', 'flaky', 'broken']))).find(
        (t) => t.name === name,
      )!.testId;
    const [pinned, flaky] = [await id('pinned'), await id('flaky')];
    const until = new Date(T0 + 3_600_000);
    await services.quarantine.setOverride(admin, {
      orgUrlSlug: ORG,
      repo: REPO,
      testId: pinned,
      override: 'always',
      reason: 'until the fix',
      expiresAt: until,
    });
    await services.quarantine.setOverride(admin, { orgUrlSlug: ORG, repo: REPO, testId: flaky, override: 'never', reason: 'see it fail', expiresAt: until });
    const config = async () => (await services.quarantine.config(orgId, { orgUrlSlug: ORG, repo: REPO })).testIds.sort();
    const override = async (testId: string) => (await services.quarantine.getOverride(orgId, { orgUrlSlug: ORG, repo: REPO, testId })).quarantined;
    const listed = async () =>
      (await services.queries.listQuarantined(orgId, { orgUrlSlug: ORG, repo: REPO, pageSize: 100 })).items.map((v) => v.test.testId).sort();

    expect(await config()).to.deep.equal([pinned]);
    expect([await override(pinned), await override(flaky)]).to.deep.equal([true, false]);
    // Past the expiry, before any flaky-refresh run: every read agrees that both overrides are gone.
    now = until.getTime() + 1;
    expect(await config()).to.deep.equal([flaky]);
    expect([await override(pinned), await override(flaky)]).to.deep.equal([false, true]);
    expect(await listed()).to.deep.equal([flaky]);
  });
});
