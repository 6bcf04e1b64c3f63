// Writes the data directory an earlier release leaves behind, for the upgrade test
// (test/integration/upgrade.test.ts): runs that release's `npm start` from its own checkout, gives it
// a day's work over its HTTP API — a queue with a merged, a testing and a cancelled pull request,
// flaky-test uploads, a second token — stops it, and packs DATA_DIR (without the private Redis,
// which holds only jobs) with a manifest of what the release answered.
//
//   git worktree add /tmp/release <commit> && (cd /tmp/release && npm ci)
//   npx tsx scripts/make-upgrade-fixture.ts --release /tmp/release --out test/fixtures/upgrade/<name>
//
// Only loopback is contacted: the release listens on 127.0.0.1 with a free port.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { createPullRequest, createRepo, DEFAULT_REPO } from './lib/git-fixtures.js';
import { gitText } from '../shared/providers/local/git-runner.js';
import { waitFor } from './lib/wait.js';
import { apiClient, printedUrl, startServiceProcess } from './lib/service-process.js';
import { UPGRADE_FIXTURE_TOKEN, type UpgradeManifest } from './lib/upgrade-fixture.js';

const { values } = parseArgs({ options: { release: { type: 'string' }, out: { type: 'string' } } });
if (!values.release || !values.out) {
  console.error('usage: make-upgrade-fixture.ts --release <checkout of the release> --out <path without extension>');
  process.exit(2);
}
const releaseDir = path.resolve(values.release);
const out = path.resolve(values.out);
const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: releaseDir, encoding: 'utf8' }).trim();

const dataDir = mkdtempSync(path.join(tmpdir(), 'openmq-upgrade-'));
const release = startServiceProcess({ root: releaseDir, dataDir, token: UPGRADE_FIXTURE_TOKEN, env: { PROVIDER_POLL_SECONDS: '1' } });
const { child } = release;

try {
  const base = await printedUrl(release);
  const client = apiClient(base, UPGRADE_FIXTURE_TOKEN);
  const call = async (operation: string, body: unknown): Promise<Record<string, unknown>> => {
    const answer = await client(operation, body);
    if (answer.status !== 200) throw new Error(`${operation}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };

  const fx = await createRepo(path.join(dataDir, 'git'), { repo: DEFAULT_REPO });
  for (const n of [1, 2, 3]) {
    await createPullRequest(fx, {
      number: n,
      commits: [{ message: `Change ${n}`, files: { [`pr-${n}.txt`]: `${n}\n` } }],
      metadata: { title: `Change ${n}`, author: 'dev', base: 'main', headBranch: `feature-${n}` },
    });
  }
  const ref = { repo: DEFAULT_REPO, targetBranch: 'main' };
  await call('createQueue', { ...ref, concurrency: 1 });
  await call('updateQueue', { ...ref, requiredStatuses: ['ci'] });
  const testBranchShas = async () =>
    (await gitText(['for-each-ref', '--format=%(objectname)', 'refs/heads/trunk-merge/'], { gitDir: fx.dir })).split('\n').filter(Boolean);

  // #1 merges after CI passes on its test branch.
  await call('submitPullRequest', { ...ref, pr: { number: 1 } });
  const [first] = await waitFor('a test branch for #1', async () => ((await testBranchShas()).length === 1 ? testBranchShas() : undefined));
  await call('setCommitStatus', { repo: DEFAULT_REPO, sha: first, context: 'ci', state: 'success' });
  await waitFor('#1 merged', async () => (await call('getSubmittedPullRequest', { ...ref, pr: { number: 1 } })).state === 'merged');
  // #2 is under test when the release stops; #3 was cancelled.
  await call('submitPullRequest', { ...ref, pr: { number: 2 } });
  await waitFor('#2 testing', async () => (await call('getSubmittedPullRequest', { ...ref, pr: { number: 2 } })).state === 'testing');
  await call('submitPullRequest', { ...ref, pr: { number: 3 } });
  await call('cancelPullRequest', { ...ref, pr: { number: 3 } });

  // Two uploads of one test that fails then passes on the same commit: flaky.
  const junit = (outcome: 'pass' | 'fail') =>
    `<testsuite name="s"><testcase classname="checkout" name="pays" file="checkout/pay_test.go">${outcome === 'fail' ? '<failure message="timeout"/>' : ''}</testcase><testcase classname="checkout" name="refunds"/></testsuite>`;
  for (const outcome of ['fail', 'pass'] as const) {
    const fd = new FormData();
    fd.append('meta', JSON.stringify({ repo: DEFAULT_REPO, org_url_slug: 'default', commit_sha: 'c'.repeat(40), branch: 'main' }));
    fd.append('junit', new Blob([junit(outcome)]), 'report.xml');
    const res = await fetch(`${base}/v1/flaky-tests/upload`, { method: 'POST', body: fd, headers: { 'x-api-token': UPGRADE_FIXTURE_TOKEN } });
    if (res.status !== 200) throw new Error(`upload: ${res.status} ${await res.text()}`);
  }
  const reader = (await call('createToken', { name: 'dashboard', role: 'read' })).token as string;

  const submitted = async (n: number) => call('getSubmittedPullRequest', { ...ref, pr: { number: n } });
  const manifest: UpgradeManifest = {
    release: commit,
    ref,
    readToken: reader,
    queue: await call('getQueue', ref),
    pullRequests: { 1: await submitted(1), 2: await submitted(2), 3: await submitted(3) },
    tests: await call('flaky-tests/list-unhealthy-tests', { repo: DEFAULT_REPO, org_url_slug: 'default', status: 'FLAKY', page_query: { page_size: 10 } }),
  };

  child.kill('SIGTERM');
  const code = await release.exited;
  if (code !== 0) throw new Error(`the release exited with ${code}:\n${release.output()}`);
  rmSync(path.join(dataDir, 'redis'), { recursive: true, force: true });
  execFileSync('tar', ['-czf', `${out}.tar.gz`, '-C', dataDir, '.']);
  writeFileSync(`${out}.json`, `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`wrote ${out}.tar.gz (${readFileSync(`${out}.tar.gz`).length} bytes) and ${out}.json from ${commit}`);
} catch (err) {
  console.error(release.output());
  throw err;
} finally {
  if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
}
