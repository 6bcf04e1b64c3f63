// An upgrade from the previous release: its data directory (test/fixtures/upgrade, written by
// scripts/make-upgrade-fixture.ts from that release's own checkout) is opened by this release's
// `npm start`, which applies the migrations once and finds every queue, entry, run, token and test
// as the release left them; the queue then carries on. A database a newer release migrated is
// refused at start.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { waitFor } from '../../scripts/lib/wait.js';
import { apiClient, printedUrl, startServiceProcess } from '../../scripts/lib/service-process.js';
import { UPGRADE_FIXTURE_TOKEN, type UpgradeManifest } from '../../scripts/lib/upgrade-fixture.js';
import { gitText } from '../../shared/providers/local/git-runner.js';
import { openDatabase } from '../../shared/platform/database/open-database.js';
import { MIGRATIONS_COLLECTION } from '../../shared/platform/database/migrations.js';
import { serviceMigrations } from '../../shared/composition/migrations.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/upgrade/release-146538f');
const manifest = JSON.parse(readFileSync(`${FIXTURE}.json`, 'utf8')) as UpgradeManifest;

const start = (dataDir: string) => startServiceProcess({ dataDir, token: UPGRADE_FIXTURE_TOKEN });

/** A listed test without its link, whose origin is the address the process happened to listen on. */
const withoutLinks = (tests: unknown) => JSON.parse(JSON.stringify(tests).replace(/http:\/\/127\.0\.0\.1:\d+\//g, 'ORIGIN/')) as unknown;

describe('upgrade from the previous release', function () {
  this.timeout(120_000);
  let dataDir: string;
  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'openmq-upgrade-'));
    execFileSync('tar', ['-xzf', `${FIXTURE}.tar.gz`, '-C', dataDir]);
    // The release stopped with #2's run in progress and a deadline of its creation + 5 h: as if it
    // had just stopped, the deadline is moved to the future, or a fixture older than 5 h would
    // test the timeout instead of the upgrade.
    const db = await openDatabase({ dataDir: path.join(dataDir, 'db') });
    try {
      await db.collection('test_runs').updateMany({ status: 'in_progress' }, { $set: { deadlineAt: new Date(Date.now() + 3_600_000) } });
    } finally {
      await db.close();
    }
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it(`opens the data directory of ${manifest.release.slice(0, 7)}: everything intact, migrated once, and the queue carries on`, async () => {
    const service = start(dataDir);
    try {
      const call = apiClient(await printedUrl(service), UPGRADE_FIXTURE_TOKEN);
      const { ref } = manifest;

      // The read token the release created still reads, and still may not write.
      const queue = await call('getQueue', ref, manifest.readToken);
      expect(queue.status).to.equal(200);
      // As the release answered, plus the settings added since, at their defaults.
      const { stackFailure, notItsFaultRetries, reuseTestedTrees, checkInteractions, schedule, mergeWindow, objectives, objectiveStatus, digest, ...known } =
        queue.body;
      expect(known).to.deep.equal(manifest.queue);
      expect(stackFailure).to.equal('land_passing_prefix');
      expect(notItsFaultRetries).to.equal(1);
      expect(reuseTestedTrees).to.equal(true);
      expect(checkInteractions).to.equal(true);
      expect([schedule, mergeWindow, objectives, objectiveStatus, digest]).to.deep.equal([null, null, [], [], null]);
      expect((await call('createToken', { name: 'x', role: 'admin' }, manifest.readToken)).status).to.equal(403);

      for (const [n, before] of Object.entries(manifest.pullRequests)) {
        expect((await call('getSubmittedPullRequest', { ...ref, pr: { number: Number(n) } })).body, `#${n}`).to.deep.equal(before);
      }
      const tests = await call('flaky-tests/list-unhealthy-tests', { repo: ref.repo, org_url_slug: 'default', status: 'FLAKY', page_query: { page_size: 10 } });
      expect(withoutLinks(tests.body)).to.deep.equal(withoutLinks(manifest.tests));

      // #2's run, in progress when the release stopped, concludes: CI reports on its test branch.
      const gitDir = path.join(dataDir, 'git', ref.repo.host, ref.repo.owner, `${ref.repo.name}.git`);
      const branches = (await gitText(['for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/trunk-merge/'], { gitDir }))
        .split('\n')
        .filter(Boolean);
      expect(branches, 'the test branch of #2').to.have.length(1);
      const sha = branches[0]!.split(' ')[1];
      expect((await call('setCommitStatus', { repo: ref.repo, sha, context: 'ci', state: 'success' })).status).to.equal(200);
      await waitFor('#2 merged', async () => (await call('getSubmittedPullRequest', { ...ref, pr: { number: 2 } })).body.state === 'merged');
    } finally {
      service.child.kill('SIGTERM');
      expect(await service.exited).to.equal(0);
    }

    const db = await openDatabase({ dataDir: path.join(dataDir, 'db') });
    try {
      const records = await db.collection<{ _id: string; version: number; name: string }>(MIGRATIONS_COLLECTION).find({}, { sort: { version: 1 } });
      expect(records.map((r) => [r.version, r.name])).to.deep.equal(serviceMigrations.map((m) => [m.version, m.name]));
      // As if a newer release had migrated it since.
      await db.collection(MIGRATIONS_COLLECTION).insertOne({ _id: 'v9999', version: 9999, name: 'from-the-future', appliedAt: new Date(), durationMs: 1 });
    } finally {
      await db.close();
    }
    const refused = start(dataDir);
    expect(await refused.exited).to.equal(2);
    expect(refused.output()).to.include(
      `all-in-one: the database's schema is at version 9999 (from-the-future), newer than this release knows (${serviceMigrations.length}): it was migrated by a newer release`,
    );
  });
});
