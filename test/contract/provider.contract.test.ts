// One contract for every forge: the same scenarios run against the local provider (bare
// repositories on disk), the GitHub provider (REST + git over HTTP against the GitHub double,
// whose state is the same kind of bare repositories) and the in-memory forge of the simulator and
// the service unit tests (so that it cannot drift from what it stands in for). What the engine relies on — pull request
// metadata, mergeability, test branches on the forge, merges that land exactly the tested tree
// and show the pull requests merged, compare-and-swap on the target — must hold for both.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { MergeMethod } from '../../shared/merge-queue/domain/model.js';
import type { GitProvider } from '../../shared/merge-queue/services/provider.js';
import { testAndMerge } from '../helpers/test-and-merge.js';
import { LocalGitProvider } from '../../shared/providers/local/local-git-provider.js';
import { createGitHubAdapter } from '../../shared/providers/github/github-adapter.js';
import { createLogger } from '../../shared/platform/logging.js';
import {
  branchSha,
  createPullRequest,
  createRepo,
  makeGitRoot,
  pushToBranch,
  removeGitRoot,
  treeOf,
  type CommitSpec,
  type FixtureRepo,
  type PullRequestFixture,
} from '../../scripts/lib/git-fixtures.js';
import { InMemoryForge } from '../../shared/merge-queue/simulation/in-memory-forge.js';
import { repoKey, type RepoRef } from '../../shared/platform/repo-ref.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/github-double.js';

/** A forge under test: the provider, and how a test sets up its repositories as a user would. */
interface Forge {
  provider: GitProvider;
  newRepo(spec: { repo: RepoRef; files: Record<string, string> }): Promise<{ repo: RepoRef; initialSha: string }>;
  openPullRequest(repo: RepoRef, pr: PullRequestFixture): Promise<{ headSha: string }>;
  push(repo: RepoRef, branch: string, commits: readonly CommitSpec[]): Promise<string>;
  branchSha(repo: RepoRef, branch: string): Promise<string | null>;
  treeOf(repo: RepoRef, ref: string): Promise<string>;
  afterEach(): void;
  close(): Promise<void>;
}

/** The forges whose storage is bare repositories on disk, set up with the git fixtures. */
function onDisk(root: string, provider: GitProvider, rest: Pick<Forge, 'afterEach' | 'close'>): Forge {
  const repos = new Map<string, FixtureRepo>();
  const fixture = (repo: RepoRef) => repos.get(repoKey(repo))!;
  return {
    provider,
    newRepo: async (spec) => {
      const fx = await createRepo(root, spec);
      repos.set(repoKey(spec.repo), fx);
      return fx;
    },
    openPullRequest: (repo, pr) => createPullRequest(fixture(repo), pr),
    push: (repo, branch, commits) => pushToBranch(fixture(repo), branch, commits),
    branchSha: (repo, branch) => branchSha(fixture(repo), branch),
    treeOf: (repo, ref) => treeOf(fixture(repo), ref),
    ...rest,
  };
}

/** The in-memory forge the simulator and the service unit tests stand on, held to the same contract. */
function inMemory(): Forge {
  const forge = new InMemoryForge();
  const squash = (commits: readonly CommitSpec[]) => commits.map((c) => c.files ?? {});
  return {
    provider: forge,
    newRepo: async (spec) => ({ repo: spec.repo, initialSha: forge.createRepository(spec.repo, spec.files).head('main')! }),
    openPullRequest: async (repo, pr) => ({
      headSha: forge.repository(repo).openPullRequest({
        number: pr.number,
        commits: squash(pr.commits),
        title: pr.metadata?.title,
        author: pr.metadata?.author,
        base: pr.metadata?.base ?? pr.base,
        headBranch: pr.metadata?.headBranch ?? undefined,
      }),
    }),
    push: async (repo, branch, commits) => {
      const memory = forge.repository(repo);
      for (const files of squash(commits)) memory.push(branch, files);
      return memory.head(branch)!;
    },
    branchSha: async (repo, branch) => forge.repository(repo).head(branch),
    treeOf: async (repo, ref) => forge.repository(repo).treeOf(ref),
    afterEach: () => undefined,
    close: async () => undefined,
  };
}

const FORGES: Record<string, () => Promise<Forge>> = {
  local: async () => {
    const root = await makeGitRoot();
    return onDisk(root, new LocalGitProvider({ root }), { afterEach: () => undefined, close: () => removeGitRoot(root) });
  },
  'github (double)': async () => {
    const root = await makeGitRoot();
    const dataDir = await mkdtemp(path.join(tmpdir(), 'openmq-gh-data-'));
    const double: GitHubDouble = await startGitHubDouble(root);
    const provider = createGitHubAdapter({
      config: {
        auth: { kind: 'app', appId: double.appId, privateKey: double.privateKey },
        webhookSecret: null,
        apiUrl: double.apiUrl,
        host: double.host,
        gitUrl: double.gitUrl,
        webhookPollSeconds: 300,
        webhookQuietSeconds: 900,
      },
      dataDir,
      logger: createLogger('silent'),
    }).provider;
    return onDisk(root, provider, {
      afterEach: () => double.assertClean(),
      close: async () => {
        await double.close();
        await removeGitRoot(root);
        await rm(dataDir, { recursive: true, force: true });
      },
    });
  },
  'in-memory': async () => inMemory(),
};

const SHARED = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
function editLine(line: number, value: string): string {
  return SHARED.split('\n')
    .map((l, i) => (i === line - 1 ? value : l))
    .join('\n');
}

for (const [name, open] of Object.entries(FORGES)) {
  describe(`provider contract: ${name}`, function () {
    this.timeout(60_000);
    let forge: Forge;
    let provider: GitProvider;
    let seq = 0;

    before(async () => {
      forge = await open();
      provider = forge.provider;
    });
    afterEach(() => forge.afterEach());
    after(() => forge.close());

    async function newRepo(): Promise<{ repo: RepoRef; initialSha: string }> {
      seq += 1;
      return forge.newRepo({
        repo: { host: 'github.com', owner: 'acme', name: `repo-${seq}` },
        files: { 'README.md': '# widgets\n', 'shared.txt': SHARED },
      });
    }

    async function twoPullRequests(fx: { repo: RepoRef }) {
      const a = await forge.openPullRequest(fx.repo, {
        number: 1,
        commits: [{ message: 'Add one', files: { 'one.txt': 'one\n', 'shared.txt': editLine(2, 'by one') } }],
        metadata: { title: 'Feature one', author: 'alice', base: 'main', headBranch: 'feature-one' },
      });
      const b = await forge.openPullRequest(fx.repo, {
        number: 2,
        commits: [
          { message: 'Add two', files: { 'two.txt': 'two\n' } },
          { message: 'Edit line 20', files: { 'shared.txt': editLine(20, 'by two') } },
        ],
        metadata: { title: 'Feature two', author: 'bob', base: 'main', headBranch: 'feature-two' },
      });
      return [
        { number: 1, headSha: a.headSha, title: 'Feature one', author: 'alice', headBranch: 'feature-one' },
        { number: 2, headSha: b.headSha, title: 'Feature two', author: 'bob', headBranch: 'feature-two' },
      ];
    }

    it('knows which repositories exist and where their branches point', async () => {
      const fx = await newRepo();
      expect(await provider.repositoryExists(fx.repo)).to.equal(true);
      expect(await provider.repositoryExists({ ...fx.repo, name: 'missing' })).to.equal(false);
      expect(await provider.branchHead(fx.repo, 'main')).to.equal(fx.initialSha);
      expect(await provider.branchHead(fx.repo, 'nope')).to.equal(null);
    });

    it('reads pull requests: metadata, open list, several at once, missing ones as null', async () => {
      const fx = await newRepo();
      const prs = await twoPullRequests(fx);
      const one = await provider.getPullRequest(fx.repo, 1);
      expect(one).to.include({
        number: 1,
        title: 'Feature one',
        author: 'alice',
        baseBranch: 'main',
        headSha: prs[0]?.headSha,
        headBranch: 'feature-one',
        state: 'open',
        merged: false,
        draft: false,
      });
      expect(await provider.getPullRequest(fx.repo, 99)).to.equal(null);
      expect((await provider.listOpenPullRequests(fx.repo)).map((p) => p.number)).to.deep.equal([1, 2]);
      const many = await provider.getPullRequests(fx.repo, [2, 99]);
      expect(many.get(2)?.title).to.equal('Feature two');
      expect(many.get(99)).to.equal(null);
    });

    it('answers mergeability, ancestry and file contents at a commit', async () => {
      const fx = await newRepo();
      const [pr] = await twoPullRequests(fx);
      const clash = await forge.openPullRequest(fx.repo, {
        number: 3,
        commits: [{ message: 'clash', files: { 'shared.txt': editLine(2, 'clash') } }],
        metadata: { title: 'Clash', base: 'main' },
      });
      const moved = await forge.push(fx.repo, 'main', [{ message: 'main edits line 2', files: { 'shared.txt': editLine(2, 'on main') } }]);
      expect(await provider.mergeability(fx.repo, { baseSha: fx.initialSha, headSha: clash.headSha })).to.equal('mergeable');
      expect(await provider.mergeability(fx.repo, { baseSha: moved, headSha: clash.headSha })).to.equal('not_mergeable');
      expect(await provider.isAncestor(fx.repo, fx.initialSha, pr?.headSha ?? '')).to.equal(true);
      expect(await provider.isAncestor(fx.repo, moved, pr?.headSha ?? '')).to.equal(false);
      expect(await provider.readFile(fx.repo, fx.initialSha, 'README.md')).to.equal('# widgets\n');
      expect(await provider.readFile(fx.repo, fx.initialSha, '.trunk/trunk.yaml')).to.equal(null);
      expect(await provider.branchProtectionRequiredStatuses(fx.repo, 'main')).to.equal(null);
    });

    it('builds a test branch on the forge, idempotently, and reports the first conflict without writing', async () => {
      const fx = await newRepo();
      const prs = await twoPullRequests(fx);
      const input = { branch: 'trunk-merge/pr-1-2/run-a', baseSha: fx.initialSha, pullRequests: prs };
      const built = await provider.buildTestBranch(fx.repo, input);
      if (!built.ok) throw new Error('conflict');
      expect(await forge.branchSha(fx.repo, 'trunk-merge/pr-1-2/run-a')).to.equal(built.sha);
      expect(await forge.treeOf(fx.repo, built.sha)).to.equal(built.tree);
      expect(await provider.buildTestBranch(fx.repo, input)).to.deep.equal(built);
      const clash = await forge.openPullRequest(fx.repo, {
        number: 3,
        commits: [{ message: 'clash', files: { 'shared.txt': editLine(2, 'clash') } }],
        metadata: { title: 'Clash', base: 'main' },
      });
      const conflict = await provider.buildTestBranch(fx.repo, {
        branch: 'trunk-merge/pr-1-3/run-b',
        baseSha: fx.initialSha,
        pullRequests: [prs[0] as (typeof prs)[number], { number: 3, headSha: clash.headSha, title: 'Clash' }],
      });
      expect(conflict).to.deep.equal({ ok: false, reason: 'conflict', conflictPrNumber: 3, conflictedFiles: ['shared.txt'] });
      expect(await forge.branchSha(fx.repo, 'trunk-merge/pr-1-3/run-b')).to.equal(null);
    });

    for (const method of ['merge_commit', 'squash', 'rebase'] as MergeMethod[]) {
      it(`${method}: a stack (each pull request based on the head branch of the one below) lands in order, exactly as tested, every member merged`, async () => {
        const fx = await newRepo();
        const prs: { number: number; headSha: string; title: string; author: string; headBranch: string; baseBranch: string }[] = [];
        for (const n of [1, 2, 3]) {
          const below = prs.at(-1);
          const baseBranch = below ? below.headBranch : 'main';
          const { headSha } = await forge.openPullRequest(fx.repo, {
            number: n,
            ...(below ? { base: `refs/pull/${below.number}/head` } : {}),
            commits: [{ message: `Layer ${n}`, files: { [`layer-${n}.txt`]: `${n}\n` } }],
            metadata: { title: `Layer ${n}`, base: baseBranch, headBranch: `stack-${n}` },
          });
          prs.push({ number: n, headSha, title: `Layer ${n}`, author: 'alice', headBranch: `stack-${n}`, baseBranch });
        }
        const { built, result } = await testAndMerge(provider, fx, prs, method, `trunk-merge/pr-1-2-3/stack-${method}`);
        // The top's head holds the whole stack: the tested tree is the top's on top of main.
        expect(built.tree).to.equal(await forge.treeOf(fx.repo, prs[2]!.headSha));
        expect(Object.keys(result.mergedShas).map(Number)).to.deep.equal([1, 2, 3]);
        expect(await forge.treeOf(fx.repo, 'main')).to.equal(built.tree);
        for (const n of [1, 2, 3]) expect((await provider.getPullRequest(fx.repo, n))?.merged, `#${n} merged`).to.equal(true);
      });
    }

    for (const method of ['merge_commit', 'squash', 'rebase'] as MergeMethod[]) {
      it(`${method}: lands exactly the tested tree and the pull requests read as merged`, async () => {
        const fx = await newRepo();
        const prs = await twoPullRequests(fx);
        const { built, result } = await testAndMerge(provider, fx, prs, method, `trunk-merge/pr-1-2/${method}`);
        expect(await forge.branchSha(fx.repo, 'main')).to.equal(result.newHeadSha);
        expect(await forge.treeOf(fx.repo, 'main')).to.equal(built.tree);
        expect(result.mergedShas[2]).to.equal(result.newHeadSha);
        for (const pr of prs) expect(await provider.getPullRequest(fx.repo, pr.number)).to.include({ state: 'closed', merged: true });
        expect(await provider.listOpenPullRequests(fx.repo)).to.deep.equal([]);
      });
    }

    it('writes nothing when the target moved, when the tree differs from the tested one, or on a conflict', async () => {
      const fx = await newRepo();
      const prs = await twoPullRequests(fx);
      const built = await provider.buildTestBranch(fx.repo, { branch: 'trunk-merge/pr-1-2/guards', baseSha: fx.initialSha, pullRequests: prs });
      if (!built.ok) throw new Error('conflict');
      const mismatch = await provider.mergePullRequests(fx.repo, {
        targetBranch: 'main',
        expectedHeadSha: fx.initialSha,
        method: 'squash',
        pullRequests: prs.slice(0, 1),
        expectedTree: built.tree,
      });
      expect(mismatch).to.include({ ok: false, reason: 'tree_mismatch' });
      expect(await forge.branchSha(fx.repo, 'main')).to.equal(fx.initialSha);
      const moved = await forge.push(fx.repo, 'main', [{ message: 'outside', files: { 'shared.txt': editLine(2, 'outside') } }]);
      expect(
        await provider.mergePullRequests(fx.repo, {
          targetBranch: 'main',
          expectedHeadSha: fx.initialSha,
          method: 'merge_commit',
          pullRequests: prs,
          expectedTree: built.tree,
        }),
      ).to.deep.equal({
        ok: false,
        reason: 'target_moved',
        actualHeadSha: moved,
      });
      const conflict = await provider.mergePullRequests(fx.repo, { targetBranch: 'main', expectedHeadSha: moved, method: 'rebase', pullRequests: prs });
      expect(conflict).to.deep.equal({ ok: false, reason: 'conflict', prNumber: 1, conflictedFiles: ['shared.txt'] });
      expect(await forge.branchSha(fx.repo, 'main')).to.equal(moved);
      for (const pr of prs) expect(await provider.getPullRequest(fx.repo, pr.number)).to.include({ state: 'open', merged: false });
    });

    it('deletes branches with an optional expected sha', async () => {
      const fx = await newRepo();
      const prs = await twoPullRequests(fx);
      const built = await provider.buildTestBranch(fx.repo, { branch: 'trunk-merge/pr-1/del', baseSha: fx.initialSha, pullRequests: prs.slice(0, 1) });
      if (!built.ok) throw new Error('conflict');
      expect(await provider.deleteBranch(fx.repo, 'trunk-merge/pr-1/del', fx.initialSha)).to.equal('moved');
      expect(await provider.deleteBranch(fx.repo, 'trunk-merge/pr-1/del', built.sha)).to.equal('deleted');
      expect(await forge.branchSha(fx.repo, 'trunk-merge/pr-1/del')).to.equal(null);
      expect(await provider.deleteBranch(fx.repo, 'trunk-merge/pr-1/del')).to.equal('not_found');
    });
  });
}
