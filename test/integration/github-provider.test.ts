// What only the GitHub provider has to get right, against the GitHub double: the requests it
// sends (squash titles, sha guards), rate limits and server errors in the middle of a merge
// (retried, never merged twice), GitHub's `mergeable: null`, required checks from rulesets and
// classic protection, token-only auth — and that the double itself refuses what GitHub would.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateKeyPairSync, sign } from 'node:crypto';
import type { GitHubConfig } from '../../shared/composition/config.js';
import type { GitHubProvider } from '../../shared/providers/github/github-provider.js';
import { createGitHubAdapter } from '../../shared/providers/github/github-adapter.js';
import { createLogger } from '../../shared/platform/logging.js';
import { createPullRequest, createRepo, listCommits, makeGitRoot, removeGitRoot, treeOf, type FixtureRepo } from '../../scripts/lib/git-fixtures.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/github-double.js';

const PLAIN_TOKEN = 'ghp_plain-token-for-small-setups';

describe('GitHub provider against the GitHub double', function () {
  this.timeout(60_000);
  let root: string;
  let dataDir: string;
  let double: GitHubDouble;
  let provider: GitHubProvider;
  let seq = 0;

  function providerWith(auth: GitHubConfig['auth']): GitHubProvider {
    return createGitHubAdapter({
      config: { auth, webhookSecret: null, apiUrl: double.apiUrl, host: double.host, gitUrl: double.gitUrl, webhookPollSeconds: 300, webhookQuietSeconds: 900 },
      dataDir,
      logger: createLogger('silent'),
    }).provider;
  }

  before(async () => {
    root = await makeGitRoot();
    dataDir = await mkdtemp(path.join(tmpdir(), 'openmq-gh-data-'));
    double = await startGitHubDouble(root, { tokens: [PLAIN_TOKEN] });
    provider = providerWith({ kind: 'app', appId: double.appId, privateKey: double.privateKey });
  });
  afterEach(() => {
    double.faults.mergeableNull = false;
    double.faults.secondaryLimit = null;
    double.faults.mergeServerError = null;
    double.faults.mergeRefusal = null;
    double.assertClean();
  });
  after(async () => {
    await double.close();
    await removeGitRoot(root);
    await rm(dataDir, { recursive: true, force: true });
  });

  async function repoWithPull(): Promise<{ fx: FixtureRepo & { initialSha: string }; pr: { number: number; headSha: string; title: string; author: string } }> {
    seq += 1;
    const fx = await createRepo(root, { repo: { host: 'github.com', owner: 'acme', name: `gh-${seq}` }, files: { 'README.md': 'hello\n' } });
    const created = await createPullRequest(fx, {
      number: 7,
      commits: [
        { message: 'wip 1', files: { 'a.txt': 'a\n' } },
        { message: 'wip 2', files: { 'b.txt': 'b\n' } },
      ],
      metadata: { title: 'Add  a and b', author: 'alice', base: 'main' },
    });
    return { fx, pr: { number: 7, headSha: created.headSha, title: 'Add  a and b', author: 'alice' } };
  }

  async function squashMerge(fx: FixtureRepo & { initialSha: string }, pr: { number: number; headSha: string; title: string; author: string }) {
    const built = await provider.buildTestBranch(fx.repo, { branch: `trunk-merge/pr-7/run-${seq}`, baseSha: fx.initialSha, pullRequests: [pr] });
    if (!built.ok) throw new Error('conflict');
    const result = await provider.mergePullRequests(fx.repo, {
      targetBranch: 'main',
      expectedHeadSha: fx.initialSha,
      method: 'squash',
      pullRequests: [pr],
      expectedTree: built.tree,
    });
    return { built, result };
  }

  it('squash asks GitHub for "<title> (#N)" guarded by the tested head, and the pull request shows merged', async () => {
    const { fx, pr } = await repoWithPull();
    const { built, result } = await squashMerge(fx, pr);
    expect(result.ok).to.equal(true);
    const [merge] = double.requestsTo('PUT', `/repos/acme/gh-${seq}/pulls/7/merge`);
    expect(merge?.body).to.deep.equal({ sha: pr.headSha, merge_method: 'squash', commit_title: 'Add a and b (#7)' });
    expect(await treeOf(fx, 'main')).to.equal(built.tree);
    const history = await listCommits(fx, 'main');
    expect(history).to.have.length(2);
    expect(history[0]?.parents).to.deep.equal([fx.initialSha]);
  });

  it('a 500 after GitHub merged is not retried blindly: the merge is found and never made twice', async () => {
    const { fx, pr } = await repoWithPull();
    double.faults.mergeServerError = { after: true, remaining: 1 };
    const { built, result } = await squashMerge(fx, pr);
    if (!result.ok) throw new Error(JSON.stringify(result));
    expect(double.requestsTo('PUT', `/gh-${seq}/pulls/7/merge`).map((r) => r.status)).to.deep.equal([500]);
    expect(await listCommits(fx, 'main')).to.have.length(2);
    expect(result.newHeadSha).to.equal((await listCommits(fx, 'main'))[0]?.sha);
    expect(await treeOf(fx, 'main')).to.equal(built.tree);
  });

  it('a 500 before anything merged is retried after checking, and merges once', async () => {
    const { fx, pr } = await repoWithPull();
    double.faults.mergeServerError = { after: false, remaining: 1 };
    const { result } = await squashMerge(fx, pr);
    expect(result.ok).to.equal(true);
    expect(double.requestsTo('PUT', `/gh-${seq}/pulls/7/merge`).map((r) => r.status)).to.deep.equal([500, 200]);
    expect(await listCommits(fx, 'main')).to.have.length(2);
  });

  it('a secondary rate limit in the middle of a merge is waited out (retry-after) and the merge completes', async () => {
    const { fx, pr } = await repoWithPull();
    double.faults.secondaryLimit = { method: 'PUT', pathIncludes: '/merge', remaining: 1, retryAfterSeconds: 1 };
    const started = Date.now();
    const { result } = await squashMerge(fx, pr);
    expect(result.ok).to.equal(true);
    expect(double.requestsTo('PUT', `/gh-${seq}/pulls/7/merge`).map((r) => r.status)).to.deep.equal([403, 200]);
    expect(Date.now() - started).to.be.at.least(1000);
  });

  it('a merge GitHub refuses fails that pull request in GitHub’s own words; nothing is retried', async () => {
    const { fx, pr } = await repoWithPull();
    double.faults.mergeRefusal = { status: 405, message: 'Repository rule violations found' };
    const { result } = await squashMerge(fx, pr);
    expect(result).to.deep.equal({
      ok: false,
      reason: 'conflict',
      prNumber: 7,
      conflictedFiles: [],
      forgeMessage: 'GitHub refused to merge #7 (405): Repository rule violations found',
    });
    expect(double.requestsTo('PUT', `/gh-${seq}/pulls/7/merge`)).to.have.length(1);
    expect(await listCommits(fx, 'main')).to.have.length(1);
  });

  it('GitHub still computing mergeability (mergeable: null) is not a conflict', async () => {
    const { fx, pr } = await repoWithPull();
    double.faults.mergeableNull = true;
    expect(await provider.getPullRequest(fx.repo, 7)).to.include({ state: 'open', headSha: pr.headSha });
    expect(await provider.mergeability(fx.repo, { baseSha: fx.initialSha, headSha: pr.headSha })).to.equal('mergeable');
  });

  it("reads a pull request's labels from GitHub and the files it changes from the cache clone", async () => {
    const { fx, pr } = await repoWithPull();
    double.labels.set(`acme/gh-${seq}#7`, ['backend', 'hotfix']);
    expect((await provider.getPullRequest(fx.repo, 7))?.labels).to.deep.equal(['backend', 'hotfix']);
    expect(await provider.changedPaths(fx.repo, { baseSha: fx.initialSha, headSha: pr.headSha }, 100)).to.deep.equal(['a.txt', 'b.txt']);
  });

  it('required statuses come from rulesets and classic branch protection together', async () => {
    const { fx } = await repoWithPull();
    expect(await provider.branchProtectionRequiredStatuses(fx.repo, 'main')).to.equal(null);
    double.protection.set(`acme/gh-${seq}/main`, { rulesets: ['lint', 'test'], classic: ['build', 'test'] });
    expect(await provider.branchProtectionRequiredStatuses(fx.repo, 'main')).to.deep.equal(['build', 'lint', 'test']);
  });

  it('a file at a commit is asked of GitHub once, present or absent (every planning pass reads trunk.yaml at the target head)', async () => {
    const { fx } = await repoWithPull();
    const contents = () => double.requestsTo('GET', `/repos/acme/gh-${seq}/contents/`).length;
    expect(await provider.readFile(fx.repo, fx.initialSha, 'README.md')).to.equal('hello\n');
    expect(await provider.readFile(fx.repo, fx.initialSha, '.trunk/trunk.yaml')).to.equal(null);
    expect(contents()).to.equal(2);
    expect(await provider.readFile(fx.repo, fx.initialSha, 'README.md')).to.equal('hello\n');
    expect(await provider.readFile(fx.repo, fx.initialSha, '.trunk/trunk.yaml')).to.equal(null);
    expect(contents(), 'read again from the cache').to.equal(2);
  });

  it('works with a plain token, and a wrong token sees no repository', async () => {
    const { fx, pr } = await repoWithPull();
    const withToken = providerWith({ kind: 'token', token: PLAIN_TOKEN });
    expect(await withToken.repositoryExists(fx.repo)).to.equal(true);
    const built = await withToken.buildTestBranch(fx.repo, { branch: 'trunk-merge/pr-7/token', baseSha: fx.initialSha, pullRequests: [pr] });
    expect(built.ok).to.equal(true);
    expect(await providerWith({ kind: 'token', token: 'ghp_not-a-token-the-double-knows' }).repositoryExists(fx.repo)).to.equal(false);
    expect(await withToken.repositoryExists({ host: 'gitlab.example.com', owner: 'acme', name: `gh-${seq}` })).to.equal(false);
  });

  describe('the double refuses what GitHub would', () => {
    it('an unexpected route, an undocumented field or parameter is a problem that fails the test', async () => {
      await fetch(`${double.apiUrl}/repos/acme/x/unknown-route`, { headers: { authorization: `token ${PLAIN_TOKEN}` } });
      await fetch(`${double.apiUrl}/repos/acme/x/pulls/1/merge`, {
        method: 'PUT',
        headers: { authorization: `token ${PLAIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ merge_method: 'fast-forward', title: 'x' }),
      });
      await fetch(`${double.apiUrl}/repos/acme/x/pulls?state=open&colour=blue`, { headers: { authorization: `token ${PLAIN_TOKEN}` } });
      const seen = double.problems.splice(0);
      expect(seen.join('\n')).to.match(/unexpected route GET \/repos\/acme\/x\/unknown-route/);
      expect(seen.join('\n')).to.match(/body: .*(merge_method|additional)/);
      expect(seen.join('\n')).to.match(/undocumented query parameter colour/);
    });

    it('an App JWT signed by another key gets 401', async () => {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const now = Math.floor(Date.now() / 1000);
      const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const unsigned = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iat: now - 30, exp: now + 300, iss: double.appId })}`;
      const jwt = `${unsigned}.${sign('RSA-SHA256', Buffer.from(unsigned), privateKey).toString('base64url')}`;
      const res = await fetch(`${double.apiUrl}/repos/acme/gh-1/installation`, { headers: { authorization: `bearer ${jwt}` } });
      expect(res.status).to.equal(401);
      // 401 is not among the documented answers of this operation: the double reports its own answer too.
      double.problems.splice(0);
    });
  });
});
