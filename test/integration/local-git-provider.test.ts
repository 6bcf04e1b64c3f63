// The local git provider on real bare repositories in a temporary directory: every method,
// conflicts, the commit graph of each merge method, and the guarantees the queue relies on
// (the merged tree equals the tested tree; a moved target or a different tree writes nothing).
import { testAndMerge } from '../helpers/test-and-merge.js';
import { rejectionOf } from '../helpers/rejection.js';
import { expect } from 'chai';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { MergeMethod } from '../../shared/merge-queue/domain/model.js';
import type { RepoRef } from '../../shared/platform/repo-ref.js';
import { LocalGitProvider, BranchExistsError, RepositoryNotFoundError } from '../../shared/providers/local/local-git-provider.js';
import { InvalidRepositoryNameError, conventionalRepositoryPath } from '../../shared/providers/local/repo-path.js';
import { InvalidGitNameError } from '../../shared/providers/local/git-names.js';
import { InvalidPullMetadataError } from '../../shared/providers/local/pull-metadata.js';
import { BlobTooLargeError, GitRepository } from '../../shared/providers/local/git-repository.js';
import { KeyedSerializer } from '../../shared/providers/keyed-serializer.js';
import { createProviderRegistry } from '../../shared/providers/registry.js';
import { GitCommandError, gitText, runGit } from '../../shared/providers/local/git-runner.js';
import { parseTrunkRequiredStatuses, readTrunkRequiredStatuses } from '../../shared/merge-queue/domain/trunk-config.js';
import {
  branchSha,
  commit,
  createPullRequest,
  createRepo,
  listCommits,
  listTree,
  makeGitRoot,
  pushToBranch,
  pushToPullRequest,
  readFileAt,
  readTree,
  removeGitRoot,
  resolve,
  setRef,
  treeOf,
  writePullMetadata,
  type FixtureRepo,
} from '../../scripts/lib/git-fixtures.js';

const BOT = { name: 'Queue Bot', email: 'bot@example.com' };
const ALICE = { name: 'Alice', email: 'alice@example.com', date: '1700000000 +0200' };
const BOB = { name: 'Bob', email: 'bob@example.com', date: '1700003600 -0500' };
const CAROL = { name: 'Carol', email: 'carol@example.com', date: '1700007200 +0000' };

/** 30 numbered lines: pull requests edit lines far apart so they merge cleanly in any order. */
const SHARED = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
function editLine(text: string, line: number, value: string): string {
  const lines = text.split('\n');
  lines[line - 1] = value;
  return lines.join('\n');
}

describe('local git provider (integration, real git)', function () {
  let root: string;
  let provider: LocalGitProvider;
  let seq = 0;

  /** A fresh repository per test, so tests never see each other's refs. */
  async function newRepo(files: Record<string, string> = { 'README.md': '# widgets\n', 'shared.txt': SHARED }): Promise<FixtureRepo & { initialSha: string }> {
    seq += 1;
    return createRepo(root, { repo: { host: 'github.com', owner: 'acme', name: `repo-${seq}` }, files });
  }

  /** Three independent pull requests: each adds its own file and edits its own line of shared.txt. */
  async function threePullRequests(fx: FixtureRepo) {
    const pr1 = await createPullRequest(fx, {
      number: 1,
      commits: [
        { message: 'Add one', files: { 'one.txt': 'one\n' }, author: ALICE },
        { message: 'Edit line 2\n\nLonger body of the second commit.', files: { 'shared.txt': editLine(SHARED, 2, 'line 2 by one') }, author: ALICE },
      ],
      metadata: { title: 'Feature one', author: 'alice' },
    });
    const pr2 = await createPullRequest(fx, {
      number: 2,
      commits: [{ message: 'Add two', files: { 'two.txt': 'two\n', 'shared.txt': editLine(SHARED, 15, 'line 15 by two') }, author: BOB }],
      metadata: { title: 'Feature two', author: 'bob' },
    });
    const pr3 = await createPullRequest(fx, {
      number: 3,
      commits: [
        { message: 'Add three', files: { 'dir/three.txt': 'three\n' }, author: CAROL },
        { message: 'Edit line 28', files: { 'shared.txt': editLine(SHARED, 28, 'line 28 by three'), 'README.md': null }, author: CAROL },
      ],
      metadata: { title: 'Feature three', author: 'carol' },
    });
    return [pr1, pr2, pr3].map((pr, i) => ({
      number: pr.number,
      headSha: pr.headSha,
      title: `Feature ${['one', 'two', 'three'][i]}`,
      author: ['alice', 'bob', 'carol'][i] as string,
    }));
  }

  before(async () => {
    root = await makeGitRoot();
    provider = new LocalGitProvider({ root, committer: BOT });
  });
  after(async () => {
    await removeGitRoot(root);
  });

  describe('repositories and the registry', () => {
    it('finds a repository at <root>/<host>/<owner>/<name>.git, and reports missing ones', async () => {
      const fx = await newRepo();
      expect(fx.dir).to.equal(path.join(root, 'github.com', 'acme', `${fx.repo.name}.git`));
      expect(await provider.repositoryExists(fx.repo)).to.equal(true);
      expect(await provider.repositoryExists({ ...fx.repo, name: 'nope' })).to.equal(false);
      const registry = createProviderRegistry({ localGitRoot: root });
      expect(await registry.providerFor(fx.repo)).to.have.property('kind', 'local');
      expect(await registry.providerFor({ ...fx.repo, name: 'nope' })).to.equal(null);
    });

    it('matches owner and name case-insensitively, like a forge', async () => {
      const fx = await newRepo();
      const shouty: RepoRef = { host: 'GitHub.com', owner: 'ACME', name: fx.repo.name.toUpperCase() };
      expect(await provider.repositoryExists(shouty)).to.equal(true);
      expect(await provider.branchHead(shouty, 'main')).to.equal(fx.initialSha);
    });

    it('serves owners with nested groups', async () => {
      const fx = await createRepo(root, { repo: { host: 'gitlab.example.com', owner: 'group/sub', name: 'nested' } });
      expect(fx.dir).to.equal(path.join(root, 'gitlab.example.com', 'group', 'sub', 'nested.git'));
      expect(await provider.branchHead(fx.repo, 'main')).to.equal(fx.initialSha);
    });

    it('rejects names that would leave the root or are not single segments', async () => {
      // A real repository just outside the root, which a traversal would reach.
      const outside = await createRepo(path.join(root, '..', `${path.basename(root)}-outside`), { repo: { host: 'h', owner: 'o', name: 'escape' } });
      try {
        const bad: RepoRef[] = [
          { host: '..', owner: 'o', name: 'x' },
          { host: '.', owner: 'o', name: 'x' },
          { host: 'a/b', owner: 'o', name: 'x' },
          { host: 'h', owner: '..', name: 'x' },
          { host: 'h', owner: 'a/../..', name: 'x' },
          { host: 'h', owner: '/abs', name: 'x' },
          { host: 'h', owner: 'a//b', name: 'x' },
          { host: 'h', owner: 'o', name: '../x' },
          { host: 'h', owner: 'o', name: 'a/b' },
          { host: 'h', owner: 'o', name: '..' },
          { host: 'h', owner: 'o', name: 'a\\b' },
          { host: 'h', owner: 'o', name: 'nul\u0000' },
          { host: '', owner: 'o', name: 'x' },
          { host: '..', owner: `${path.basename(root)}-outside/h/o`, name: 'escape' },
        ];
        const registry = createProviderRegistry({ localGitRoot: root });
        for (const repo of bad) {
          expect(() => conventionalRepositoryPath(root, repo), JSON.stringify(repo)).to.throw(InvalidRepositoryNameError);
          expect(await provider.repositoryExists(repo), JSON.stringify(repo)).to.equal(false);
          expect(await registry.providerFor(repo), JSON.stringify(repo)).to.equal(null);
          expect(await rejectionOf(provider.branchHead(repo, 'main'))).to.be.instanceOf(InvalidRepositoryNameError);
        }
      } finally {
        await removeGitRoot(path.dirname(path.dirname(path.dirname(outside.dir))));
      }
    });

    it('throws RepositoryNotFoundError when a method is called for an unknown repository', async () => {
      const err = await rejectionOf(provider.branchHead({ host: 'github.com', owner: 'acme', name: 'ghost' }, 'main'));
      expect(err).to.be.instanceOf(RepositoryNotFoundError);
    });

    it('does not mistake a plain directory for a repository', async () => {
      await mkdir(path.join(root, 'github.com', 'acme', 'plain.git'), { recursive: true });
      expect(await provider.repositoryExists({ host: 'github.com', owner: 'acme', name: 'plain' })).to.equal(false);
    });
  });

  describe('branchHead', () => {
    it('returns the branch head, or null for a missing branch', async () => {
      const fx = await newRepo();
      expect(await provider.branchHead(fx.repo, 'main')).to.equal(fx.initialSha);
      expect(await provider.branchHead(fx.repo, 'develop')).to.equal(null);
    });

    it('matches the exact branch, not a branch below it', async () => {
      const fx = await newRepo();
      await setRef(fx, 'refs/heads/feature/x', fx.initialSha);
      expect(await provider.branchHead(fx.repo, 'feature')).to.equal(null);
      expect(await provider.branchHead(fx.repo, 'feature/x')).to.equal(fx.initialSha);
    });

    it('refuses revision expressions and option-like names', async () => {
      const fx = await newRepo();
      for (const name of ['main~1', 'main^', '@{-1}', 'a..b', '-delete', 'main:x', 'a b', '', 'x.lock', '.hidden', 'a/', '@']) {
        expect(await rejectionOf(provider.branchHead(fx.repo, name)), name).to.be.instanceOf(InvalidGitNameError);
      }
    });
  });

  describe('pull requests', () => {
    it('without pulls/N.json: title and author from the head commit, unknown base, open, not draft', async () => {
      const fx = await newRepo();
      const pr = await createPullRequest(fx, {
        number: 7,
        commits: [
          { message: 'First step', files: { 'a.txt': 'a\n' }, author: BOB },
          { message: 'Make widgets shiny\n\nWith a body.', files: { 'b.txt': 'b\n' }, author: ALICE },
        ],
      });
      const info = await provider.getPullRequest(fx.repo, 7);
      expect(info).to.deep.equal({
        number: 7,
        title: 'Make widgets shiny',
        author: 'Alice',
        baseBranch: null,
        headSha: pr.headSha,
        headBranch: null,
        state: 'open',
        merged: false,
        draft: false,
        fromFork: false,
        labels: [],
        url: `file://${fx.dir}/pull/7`,
      });
      expect(await provider.getPullRequest(fx.repo, 8)).to.equal(null);
    });

    it('with pulls/N.json: every field comes from the metadata', async () => {
      const fx = await newRepo();
      const pr = await createPullRequest(fx, {
        number: 3,
        commits: [{ message: 'wip', files: { 'a.txt': 'a\n' } }],
        metadata: { title: 'Add a', author: 'octocat', base: 'release', state: 'closed', draft: true, headBranch: 'feature/a' },
      });
      const info = await provider.getPullRequest(fx.repo, 3);
      expect(info).to.include({
        title: 'Add a',
        author: 'octocat',
        baseBranch: 'release',
        headSha: pr.headSha,
        headBranch: 'feature/a',
        state: 'closed',
        draft: true,
        merged: false,
      });
    });

    it('reads labels from the metadata and refuses a labels field that is not a list of names', async () => {
      const fx = await newRepo();
      await createPullRequest(fx, { number: 9, commits: [{ message: 'x', files: { 'a.txt': 'a\n' } }], metadata: { labels: ['backend', 'hotfix'] } });
      expect((await provider.getPullRequest(fx.repo, 9))?.labels).to.deep.equal(['backend', 'hotfix']);
      for (const labels of ['hotfix', [''], [1]]) {
        await writePullMetadata(fx, 9, { labels });
        expect(await rejectionOf(provider.getPullRequest(fx.repo, 9)), JSON.stringify(labels)).to.be.instanceOf(InvalidPullMetadataError);
      }
    });

    it('names the files a pull request changes since its merge base, whatever moved on the target since', async () => {
      const fx = await newRepo();
      const pr = await createPullRequest(fx, {
        number: 10,
        commits: [
          { message: 'add', files: { 'services/api/a.go': 'a\n', 'docs/x.md': 'x\n' } },
          { message: 'undo docs, move', files: { 'docs/x.md': null, 'README.md': 'readme\n' } },
        ],
      });
      const main = await pushToBranch(fx, 'main', [{ message: 'elsewhere', files: { 'web/app.tsx': 'app\n' } }]);
      const paths = await provider.changedPaths(fx.repo, { baseSha: main, headSha: pr.headSha }, 100);
      expect(paths?.sort()).to.deep.equal(['README.md', 'services/api/a.go']);
      expect(await provider.changedPaths(fx.repo, { baseSha: main, headSha: pr.headSha }, 1), 'more than the limit').to.equal(null);
    });

    it('partial metadata falls back field by field', async () => {
      const fx = await newRepo();
      await createPullRequest(fx, { number: 4, commits: [{ message: 'Subject here', files: { 'a.txt': 'a\n' }, author: BOB }], metadata: { draft: true } });
      expect(await provider.getPullRequest(fx.repo, 4)).to.include({ title: 'Subject here', author: 'Bob', baseBranch: null, state: 'open', draft: true });
    });

    it('sees pushes to the pull request and metadata changes', async () => {
      const fx = await newRepo();
      await createPullRequest(fx, { number: 5, commits: [{ message: 'one', files: { 'a.txt': '1\n' } }] });
      const newHead = await pushToPullRequest(fx, 5, [{ message: 'two', files: { 'a.txt': '2\n' } }]);
      expect((await provider.getPullRequest(fx.repo, 5))?.headSha).to.equal(newHead);
      await writePullMetadata(fx, 5, { state: 'closed' });
      expect((await provider.getPullRequest(fx.repo, 5))?.state).to.equal('closed');
    });

    it('reports unusable metadata loudly instead of guessing', async () => {
      const fx = await newRepo();
      await createPullRequest(fx, { number: 6, commits: [{ message: 'x', files: { 'a.txt': 'a\n' } }] });
      for (const bad of [{ state: 'merged' }, { draft: 'yes' }, { title: 42 }, ['not', 'an', 'object']]) {
        await writePullMetadata(fx, 6, bad as Record<string, unknown>);
        expect(await rejectionOf(provider.getPullRequest(fx.repo, 6)), JSON.stringify(bad)).to.be.instanceOf(InvalidPullMetadataError);
      }
      await writeFile(path.join(fx.dir, 'pulls', '6.json'), '{ not json');
      expect(await rejectionOf(provider.getPullRequest(fx.repo, 6))).to.be.instanceOf(InvalidPullMetadataError);
    });

    it('reads arriving together are answered each on its own: one that cannot be described fails alone', async () => {
      const fx = await newRepo();
      const heads = new Map<number, string>();
      for (const n of [1, 2, 3])
        heads.set(n, (await createPullRequest(fx, { number: n, commits: [{ message: `pr ${n}`, files: { [`${n}.txt`]: `${n}\n` } }] })).headSha);
      await mkdir(path.join(fx.dir, 'pulls'), { recursive: true });
      await writeFile(path.join(fx.dir, 'pulls', '3.json'), '{ not json');
      // Several batches: the reads issued while the first listing runs go in the next one.
      const reads = [1, 2, 3, 404, 2, 1].map((n) =>
        provider.getPullRequest(fx.repo, n).then(
          (pr) => pr,
          (err: unknown) => err,
        ),
      );
      await new Promise((r) => setImmediate(r));
      reads.push(
        provider.getPullRequest(fx.repo, 2).then(
          (pr) => pr,
          (err: unknown) => err,
        ),
      );
      const [one, two, three, missing, twoAgain, oneAgain, twoLater] = await Promise.all(reads);
      expect(one).to.include({ number: 1, headSha: heads.get(1), title: 'pr 1' });
      expect(two).to.include({ number: 2, headSha: heads.get(2), title: 'pr 2' });
      expect(three).to.be.instanceOf(InvalidPullMetadataError);
      expect(missing).to.equal(null);
      expect(twoAgain).to.deep.equal(two);
      expect(oneAgain).to.deep.equal(one);
      expect(twoLater).to.deep.equal(two);
    });

    it('refuses pull request numbers that are not positive integers', async () => {
      const fx = await newRepo();
      for (const n of [0, -1, 1.5, Number.NaN]) expect(await rejectionOf(provider.getPullRequest(fx.repo, n))).to.be.instanceOf(InvalidGitNameError);
    });

    it('lists open pull requests only, by number', async () => {
      const fx = await newRepo();
      await createPullRequest(fx, { number: 12, commits: [{ message: 'twelve', files: { 'a.txt': '12\n' } }] });
      await createPullRequest(fx, { number: 2, commits: [{ message: 'two', files: { 'b.txt': '2\n' } }], metadata: { draft: true } });
      await createPullRequest(fx, { number: 5, commits: [{ message: 'five', files: { 'c.txt': '5\n' } }], metadata: { state: 'closed' } });
      // Not a pull request head: ignored.
      await setRef(fx, 'refs/pull/9/merge', fx.initialSha);
      const open = await provider.listOpenPullRequests(fx.repo);
      expect(open.map((p) => [p.number, p.title, p.draft])).to.deep.equal([
        [2, 'two', true],
        [12, 'twelve', false],
      ]);
    });

    it('reads several pull requests at once, the missing ones as null', async () => {
      const fx = await newRepo();
      const twelve = await createPullRequest(fx, { number: 12, commits: [{ message: 'twelve', files: { 'a.txt': '12\n' } }] });
      await createPullRequest(fx, { number: 5, commits: [{ message: 'five', files: { 'c.txt': '5\n' } }], metadata: { state: 'closed', title: 'Five' } });
      const got = await provider.getPullRequests(fx.repo, [12, 5, 7]);
      expect([...got.keys()]).to.deep.equal([12, 5, 7]);
      expect(got.get(12)).to.deep.include({ number: 12, title: 'twelve', headSha: twelve.headSha, state: 'open', merged: false });
      expect(got.get(5)).to.deep.include({ number: 5, title: 'Five', state: 'closed' });
      expect(got.get(7)).to.equal(null);
      expect(got.get(12)).to.deep.equal(await provider.getPullRequest(fx.repo, 12));
    });
  });

  describe('mergeability and ancestry', () => {
    it('is mergeable when the head merges cleanly onto the target, not_mergeable on conflicts', async () => {
      const fx = await newRepo();
      const clean = await createPullRequest(fx, { number: 1, commits: [{ message: 'edit 20', files: { 'shared.txt': editLine(SHARED, 20, 'pr') } }] });
      const conflicting = await createPullRequest(fx, { number: 2, commits: [{ message: 'edit 3', files: { 'shared.txt': editLine(SHARED, 3, 'pr') } }] });
      const main = await pushToBranch(fx, 'main', [{ message: 'main edits 3', files: { 'shared.txt': editLine(SHARED, 3, 'main') } }]);
      expect(await provider.mergeability(fx.repo, { baseSha: main, headSha: clean.headSha })).to.equal('mergeable');
      expect(await provider.mergeability(fx.repo, { baseSha: main, headSha: conflicting.headSha })).to.equal('not_mergeable');
      // The original base did not conflict: mergeability depends on the target head it is asked for.
      expect(await provider.mergeability(fx.repo, { baseSha: fx.initialSha, headSha: conflicting.headSha })).to.equal('mergeable');
    });

    it('treats unrelated histories as not mergeable and unknown commits as errors', async () => {
      const fx = await newRepo();
      const orphan = await commit(fx, null, { message: 'orphan', files: { 'x.txt': 'x\n' } });
      expect(await provider.mergeability(fx.repo, { baseSha: fx.initialSha, headSha: orphan })).to.equal('not_mergeable');
      const missing = 'f'.repeat(40);
      expect(await rejectionOf(provider.mergeability(fx.repo, { baseSha: fx.initialSha, headSha: missing }))).to.match(/git merge-tree/);
      expect(await rejectionOf(provider.mergeability(fx.repo, { baseSha: 'main', headSha: orphan }))).to.be.instanceOf(InvalidGitNameError);
    });

    it('isAncestor answers whether a PR is based on the target tip', async () => {
      const fx = await newRepo();
      const pr = await createPullRequest(fx, { number: 1, commits: [{ message: 'x', files: { 'x.txt': 'x\n' } }] });
      expect(await provider.isAncestor(fx.repo, fx.initialSha, pr.headSha)).to.equal(true);
      expect(await provider.isAncestor(fx.repo, fx.initialSha, fx.initialSha)).to.equal(true);
      const moved = await pushToBranch(fx, 'main', [{ message: 'y', files: { 'y.txt': 'y\n' } }]);
      expect(await provider.isAncestor(fx.repo, moved, pr.headSha)).to.equal(false);
    });
  });

  describe('readFile and .trunk/trunk.yaml', () => {
    it('reads a file at a commit; null when absent or a directory; errors for unknown commits and bad paths', async () => {
      const fx = await newRepo({ 'README.md': 'hello\n', 'docs/guide.md': 'guide\n' });
      expect(await provider.readFile(fx.repo, fx.initialSha, 'README.md')).to.equal('hello\n');
      expect(await provider.readFile(fx.repo, fx.initialSha, 'docs/guide.md')).to.equal('guide\n');
      expect(await provider.readFile(fx.repo, fx.initialSha, 'missing.md')).to.equal(null);
      expect(await provider.readFile(fx.repo, fx.initialSha, 'docs')).to.equal(null);
      expect(await rejectionOf(provider.readFile(fx.repo, 'a'.repeat(40), 'README.md'))).to.match(/not a commit/);
      for (const bad of ['', '/etc/passwd', '../x', 'a//b', 'a/./b', 'x\ny']) {
        expect(await rejectionOf(provider.readFile(fx.repo, fx.initialSha, bad)), JSON.stringify(bad)).to.be.instanceOf(InvalidGitNameError);
      }
    });

    it('refuses files larger than the limit', async () => {
      const fx = await newRepo({ 'big.txt': 'x'.repeat(2048) });
      const small = new LocalGitProvider({ root, maxFileBytes: 1024 });
      expect(await rejectionOf(small.readFile(fx.repo, fx.initialSha, 'big.txt'))).to.be.instanceOf(BlobTooLargeError);
    });

    it('reads required statuses from .trunk/trunk.yaml at a commit', async () => {
      const fx = await newRepo({ '.trunk/trunk.yaml': 'version: 0.1\nmerge:\n  required_statuses:\n    - build\n    - "test (ubuntu)"\n' });
      expect(await readTrunkRequiredStatuses(provider, fx.repo, fx.initialSha)).to.deep.equal({ kind: 'statuses', statuses: ['build', 'test (ubuntu)'] });
      const without = await pushToBranch(fx, 'main', [{ message: 'drop config', files: { '.trunk/trunk.yaml': null } }]);
      expect(await readTrunkRequiredStatuses(provider, fx.repo, without)).to.deep.equal({ kind: 'absent' });
    });

    it('parses trunk.yaml: absent, none, statuses and each kind of invalid file', () => {
      expect(parseTrunkRequiredStatuses(null)).to.deep.equal({ kind: 'absent' });
      for (const none of ['', 'version: 0.1\n', 'version: 0.1\nmerge:\n', 'merge:\n  required_statuses: []\n', 'merge: {}\n', 'cli:\n  version: 1.22.0\n']) {
        expect(parseTrunkRequiredStatuses(none), JSON.stringify(none)).to.deep.equal({ kind: 'none' });
      }
      expect(parseTrunkRequiredStatuses('version: "0.1"\nmerge:\n  required_statuses: [a, b, a]\n')).to.deep.equal({ kind: 'statuses', statuses: ['a', 'b'] });
      const invalid: Array<[string, string]> = [
        ['merge: [unclosed\n', 'parse_error'],
        ['a: 1\na: 2\n', 'parse_error'],
        ['- just\n- a list\n', 'parse_error'],
        ['a: 1\n---\nb: 2\n', 'parse_error'],
        ['version: 0.2\nmerge:\n  required_statuses: [a]\n', 'bad_version'],
        ['merge: yes\n', 'bad_required_statuses'],
        ['merge:\n  required_statuses: build\n', 'bad_required_statuses'],
        ['merge:\n  required_statuses: [build, 3]\n', 'bad_required_statuses'],
        ['merge:\n  required_statuses: [build, ""]\n', 'bad_required_statuses'],
        ['merge:\n  required_statuses: [{name: build}]\n', 'bad_required_statuses'],
      ];
      for (const [text, reason] of invalid) {
        const result = parseTrunkRequiredStatuses(text);
        expect(result, text).to.include({ kind: 'invalid', reason });
        expect(result).to.have.property('message').that.is.a('string').and.not.equal('');
      }
    });

    it('caps YAML alias expansion', () => {
      const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
      for (let i = 0; i < 120; i++) lines.push(`b${i}: &b${i} [*${i === 0 ? 'a' : `b${i - 1}`}, *${i === 0 ? 'a' : `b${i - 1}`}]`);
      const result = parseTrunkRequiredStatuses(lines.join('\n'));
      expect(result).to.include({ kind: 'invalid', reason: 'parse_error' });
      expect(result).to.have.property('message').that.matches(/alias/i);
    });
  });

  describe('buildTestBranch', () => {
    it('gives two runs of the same combination different commits with the same tree', async () => {
      const fx = await newRepo();
      const prs = await threePullRequests(fx);
      const a = await provider.buildTestBranch(fx.repo, { branch: 'trunk-merge/pr-1/run-a', baseSha: fx.initialSha, pullRequests: prs.slice(0, 1) });
      const b = await provider.buildTestBranch(fx.repo, { branch: 'trunk-merge/pr-1/run-b', baseSha: fx.initialSha, pullRequests: prs.slice(0, 1) });
      if (!a.ok || !b.ok) throw new Error('unexpected conflict');
      expect(a.sha).not.to.equal(b.sha);
      expect(a.tree).to.equal(b.tree);
      expect((await listCommits(fx, b.sha, { limit: 1 }))[0]?.message).to.include('Test branch: trunk-merge/pr-1/run-b');
    });

    it('merges each pull request in order onto the base, one merge commit per pull request', async () => {
      const fx = await newRepo();
      const prs = await threePullRequests(fx);
      const result = await provider.buildTestBranch(fx.repo, { branch: 'trunk-merge/pr-1-2-3/run-1', baseSha: fx.initialSha, pullRequests: prs });
      if (!result.ok) throw new Error(`unexpected conflict on #${result.conflictPrNumber}`);
      expect(await branchSha(fx, 'trunk-merge/pr-1-2-3/run-1')).to.equal(result.sha);
      expect(result.tree).to.equal(await treeOf(fx, result.sha));
      const mainline = await listCommits(fx, result.sha, { firstParent: true, limit: 3 });
      expect(mainline.map((c) => c.parents[1])).to.deep.equal([prs[2]?.headSha, prs[1]?.headSha, prs[0]?.headSha]);
      expect(mainline.map((c) => c.subject)).to.deep.equal([
        'Merge pull request #3: Feature three',
        'Merge pull request #2: Feature two',
        'Merge pull request #1: Feature one',
      ]);
      expect(mainline[2]?.parents[0]).to.equal(fx.initialSha);
      expect(mainline.every((c) => c.committerName === BOT.name && c.authorName === BOT.name)).to.equal(true);
      expect(await listTree(fx, result.sha)).to.deep.equal(['dir/three.txt', 'one.txt', 'shared.txt', 'two.txt']);
      const shared = await readFileAt(fx, result.sha, 'shared.txt');
      expect(shared).to.contain('line 2 by one').and.contain('line 15 by two').and.contain('line 28 by three');
      // Nothing touched the target.
      expect(await branchSha(fx, 'main')).to.equal(fx.initialSha);
    });

    it('reports the first conflicting pull request and writes no branch', async () => {
      const fx = await newRepo();
      const a = await createPullRequest(fx, { number: 10, commits: [{ message: 'a', files: { 'shared.txt': editLine(SHARED, 5, 'A') } }] });
      const b = await createPullRequest(fx, { number: 11, commits: [{ message: 'b', files: { 'shared.txt': editLine(SHARED, 5, 'B') } }] });
      const c = await createPullRequest(fx, { number: 12, commits: [{ message: 'c', files: { 'c.txt': 'c\n' } }] });
      const result = await provider.buildTestBranch(fx.repo, {
        branch: 'trunk-merge/pr-10-11-12/run',
        baseSha: fx.initialSha,
        pullRequests: [a, b, c].map((p) => ({ number: p.number, headSha: p.headSha, title: `#${p.number}` })),
      });
      expect(result).to.deep.equal({ ok: false, reason: 'conflict', conflictPrNumber: 11, conflictedFiles: ['shared.txt'] });
      expect(await branchSha(fx, 'trunk-merge/pr-10-11-12/run')).to.equal(null);
    });

    it('conflicts with the base are reported too', async () => {
      const fx = await newRepo();
      const pr = await createPullRequest(fx, { number: 1, commits: [{ message: 'a', files: { 'shared.txt': editLine(SHARED, 5, 'A') } }] });
      const main = await pushToBranch(fx, 'main', [{ message: 'm', files: { 'shared.txt': editLine(SHARED, 5, 'M') } }]);
      const result = await provider.buildTestBranch(fx.repo, { branch: 't/1', baseSha: main, pullRequests: [{ number: 1, headSha: pr.headSha, title: 'a' }] });
      expect(result).to.include({ ok: false, conflictPrNumber: 1 });
    });

    it('is idempotent for a retried build and refuses to overwrite a different branch', async () => {
      const fx = await newRepo();
      const prs = await threePullRequests(fx);
      const input = { branch: 'trunk-merge/pr-1/run-2', baseSha: fx.initialSha, pullRequests: prs.slice(0, 1) };
      const first = await provider.buildTestBranch(fx.repo, input);
      const again = await provider.buildTestBranch(fx.repo, input);
      expect(again).to.deep.equal(first);
      const other = await rejectionOf(provider.buildTestBranch(fx.repo, { ...input, pullRequests: prs.slice(1, 2) }));
      expect(other).to.be.instanceOf(BranchExistsError);
      expect(await branchSha(fx, input.branch)).to.equal(first.ok ? first.sha : null);
    });

    it('with no pull requests the branch points at the base', async () => {
      const fx = await newRepo();
      const result = await provider.buildTestBranch(fx.repo, { branch: 't/empty', baseSha: fx.initialSha, pullRequests: [] });
      expect(result).to.deep.equal({ ok: true, sha: fx.initialSha, tree: await treeOf(fx, fx.initialSha) });
    });

    it('validates the branch name and shas before touching the repository', async () => {
      const fx = await newRepo();
      expect(await rejectionOf(provider.buildTestBranch(fx.repo, { branch: 'bad..name', baseSha: fx.initialSha, pullRequests: [] }))).to.be.instanceOf(
        InvalidGitNameError,
      );
      expect(await rejectionOf(provider.buildTestBranch(fx.repo, { branch: 't/x', baseSha: 'HEAD', pullRequests: [] }))).to.be.instanceOf(InvalidGitNameError);
    });
  });

  describe('mergePullRequests', () => {
    /** Builds the test branch of three pull requests and merges them with `method`, checking the shared guarantees. */
    async function mergeThree(method: MergeMethod) {
      const fx = await newRepo();
      const prs = await threePullRequests(fx);
      const { built, result } = await testAndMerge(provider, fx, prs, method, `trunk-merge/pr-1-2-3/${method}`);
      expect(await branchSha(fx, 'main')).to.equal(result.newHeadSha);
      // The queue's promise: what lands on main is exactly what was tested.
      expect(await treeOf(fx, 'main')).to.equal(built.tree);
      expect(await readTree(fx, 'main')).to.deep.equal(await readTree(fx, built.sha));
      expect(Object.keys(result.mergedShas).map(Number)).to.deep.equal([1, 2, 3]);
      expect(result.mergedShas[3]).to.equal(result.newHeadSha);
      // Merged pull requests read as closed and merged, and drop out of the open list.
      for (const pr of prs) expect(await provider.getPullRequest(fx.repo, pr.number)).to.include({ state: 'closed', merged: true });
      expect(await provider.listOpenPullRequests(fx.repo)).to.deep.equal([]);
      return { fx, prs, result };
    }

    it('merge_commit: one merge commit per pull request with parents [previous head, PR head]', async () => {
      const { fx, prs, result } = await mergeThree('merge_commit');
      if (!result.ok) return;
      const mainline = await listCommits(fx, 'main', { firstParent: true });
      expect(mainline).to.have.length(4);
      expect(mainline.map((c) => c.sha).slice(0, 3)).to.deep.equal([result.mergedShas[3], result.mergedShas[2], result.mergedShas[1]]);
      for (const [i, c] of mainline.slice(0, 3).reverse().entries()) {
        expect(c.parents).to.deep.equal([i === 0 ? fx.initialSha : result.mergedShas[i], prs[i]?.headSha]);
        expect(c.subject).to.equal(`Merge pull request #${i + 1}`);
        expect(c.message).to.contain(prs[i]?.title);
        expect([c.authorName, c.committerName, c.committerEmail]).to.deep.equal([BOT.name, BOT.name, BOT.email]);
      }
    });

    it('squash: one single-parent commit per pull request titled "<title> (#N)"', async () => {
      const { fx, result } = await mergeThree('squash');
      if (!result.ok) return;
      const history = await listCommits(fx, 'main');
      expect(history).to.have.length(4);
      expect(history.map((c) => c.subject)).to.deep.equal(['Feature three (#3)', 'Feature two (#2)', 'Feature one (#1)', 'Initial commit']);
      expect(history.slice(0, 3).map((c) => c.parents.length)).to.deep.equal([1, 1, 1]);
      expect(history[2]?.parents).to.deep.equal([fx.initialSha]);
      expect(history.slice(0, 3).map((c) => c.authorName)).to.deep.equal(['Carol', 'Bob', 'Alice']);
      expect(history.slice(0, 3).every((c) => c.committerName === BOT.name)).to.equal(true);
      // Each squash commit holds exactly its pull request's changes.
      expect(await listTree(fx, result.mergedShas[1] as string)).to.deep.equal(['README.md', 'one.txt', 'shared.txt']);
    });

    it('rebase: each pull request commit replayed in order, keeping author, date and message', async () => {
      const { fx, result } = await mergeThree('rebase');
      if (!result.ok) return;
      const history = await listCommits(fx, 'main');
      expect(history.map((c) => c.subject)).to.deep.equal(['Edit line 28', 'Add three', 'Add two', 'Edit line 2', 'Add one', 'Initial commit']);
      expect(history.slice(0, 5).every((c) => c.parents.length === 1 && c.committerName === BOT.name && c.committerEmail === BOT.email)).to.equal(true);
      expect(history.slice(0, 5).map((c) => [c.authorName, c.authorEmail, c.authorDate])).to.deep.equal([
        [CAROL.name, CAROL.email, CAROL.date],
        [CAROL.name, CAROL.email, CAROL.date],
        [BOB.name, BOB.email, BOB.date],
        [ALICE.name, ALICE.email, ALICE.date],
        [ALICE.name, ALICE.email, ALICE.date],
      ]);
      expect(history[3]?.message).to.equal('Edit line 2\n\nLonger body of the second commit.');
      expect([result.mergedShas[1], result.mergedShas[2], result.mergedShas[3]]).to.deep.equal([history[3]?.sha, history[2]?.sha, history[0]?.sha]);
    });

    it('rebase skips merge commits inside the pull request and commits already on the target', async () => {
      const fx = await newRepo();
      const pr = await createPullRequest(fx, {
        number: 1,
        commits: [
          { message: 'feature', files: { 'f.txt': 'f\n' } },
          { message: 'same change as main', files: { 'm.txt': 'm\n' } },
        ],
      });
      const main = await pushToBranch(fx, 'main', [{ message: 'main work', files: { 'm.txt': 'm\n' } }]);
      // The author merged main into the pull request (no conflict: same content), then kept working.
      const mergeInPr = await gitText(['commit-tree', await treeOf(fx, pr.headSha), '-p', pr.headSha, '-p', main], {
        gitDir: fx.dir,
        input: "Merge branch 'main' into feature\n",
        env: { GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@x', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@x' },
      });
      await setRef(fx, 'refs/pull/1/head', mergeInPr);
      const head = await pushToPullRequest(fx, 1, [{ message: 'more', files: { 'g.txt': 'g\n' } }]);
      const result = await provider.mergePullRequests(fx.repo, {
        targetBranch: 'main',
        expectedHeadSha: main,
        method: 'rebase',
        pullRequests: [{ number: 1, headSha: head, title: 'Feature', author: 'a' }],
      });
      if (!result.ok) throw new Error(JSON.stringify(result));
      const history = await listCommits(fx, 'main');
      expect(history.map((c) => c.subject)).to.deep.equal(['more', 'feature', 'main work', 'Initial commit']);
      expect(await listTree(fx, 'main')).to.deep.equal(['README.md', 'f.txt', 'g.txt', 'm.txt', 'shared.txt']);
    });

    it('squash applies only the pull request changes when the target moved on since it branched', async () => {
      const fx = await newRepo();
      const pr = await createPullRequest(fx, { number: 1, commits: [{ message: 'pr', files: { 'shared.txt': editLine(SHARED, 1, 'pr') } }] });
      const main = await pushToBranch(fx, 'main', [{ message: 'main', files: { 'shared.txt': editLine(SHARED, 30, 'main') } }]);
      const result = await provider.mergePullRequests(fx.repo, {
        targetBranch: 'main',
        expectedHeadSha: main,
        method: 'squash',
        pullRequests: [{ number: 1, headSha: pr.headSha, title: 'PR', author: 'x' }],
      });
      expect(result.ok).to.equal(true);
      const shared = (await readFileAt(fx, 'main', 'shared.txt')) ?? '';
      expect(shared.split('\n')[0]).to.equal('pr');
      expect(shared.split('\n')[29]).to.equal('main');
    });

    it('target_moved: someone pushed to the target after testing; nothing is written', async () => {
      const fx = await newRepo();
      const prs = await threePullRequests(fx);
      const built = await provider.buildTestBranch(fx.repo, { branch: 't/moved', baseSha: fx.initialSha, pullRequests: prs });
      if (!built.ok) throw new Error('conflict');
      const pushed = await pushToBranch(fx, 'main', [{ message: 'hotfix', files: { 'hotfix.txt': 'x\n' } }]);
      for (const method of ['merge_commit', 'squash', 'rebase'] as const) {
        const result = await provider.mergePullRequests(fx.repo, {
          targetBranch: 'main',
          expectedHeadSha: fx.initialSha,
          method,
          pullRequests: prs,
          expectedTree: built.tree,
        });
        expect(result).to.deep.equal({ ok: false, reason: 'target_moved', actualHeadSha: pushed });
      }
      expect(await branchSha(fx, 'main')).to.equal(pushed);
      expect(await provider.getPullRequest(fx.repo, 1)).to.include({ state: 'open', merged: false });
    });

    it('target_moved when the ref moves during the merge: the compare-and-swap loses, nothing is written', async () => {
      const fx = await newRepo();
      const prs = await threePullRequests(fx);
      // Two service processes racing: simulated with two providers (separate in-process serializers).
      const other = new LocalGitProvider({ root, committer: BOT });
      const input = { targetBranch: 'main', expectedHeadSha: fx.initialSha, method: 'squash' as const };
      const results = await Promise.all([
        provider.mergePullRequests(fx.repo, { ...input, pullRequests: prs.slice(0, 1) }),
        other.mergePullRequests(fx.repo, { ...input, pullRequests: prs.slice(1, 2) }),
      ]);
      const winners = results.filter((r) => r.ok);
      expect(winners).to.have.length(1);
      const loser = results.find((r) => !r.ok);
      expect(loser).to.include({ ok: false, reason: 'target_moved' });
      const head = await branchSha(fx, 'main');
      expect(winners[0]).to.include({ newHeadSha: head });
      expect(await listCommits(fx, 'main')).to.have.length(2);
    });

    it('tree_mismatch: the merge would differ from the tested tree; nothing is written', async () => {
      const fx = await newRepo();
      const prs = await threePullRequests(fx);
      const tested = await provider.buildTestBranch(fx.repo, { branch: 't/two-only', baseSha: fx.initialSha, pullRequests: prs.slice(0, 2) });
      if (!tested.ok) throw new Error('conflict');
      const result = await provider.mergePullRequests(fx.repo, {
        targetBranch: 'main',
        expectedHeadSha: fx.initialSha,
        method: 'merge_commit',
        pullRequests: prs,
        expectedTree: tested.tree,
      });
      expect(result).to.deep.include({ ok: false, reason: 'tree_mismatch', expectedTree: tested.tree });
      expect(result).to.have.property('actualTree').that.not.equals(tested.tree);
      expect(await branchSha(fx, 'main')).to.equal(fx.initialSha);
      expect(await provider.getPullRequest(fx.repo, 1)).to.include({ merged: false });
    });

    it('a conflict at merge time names the pull request; nothing is written', async () => {
      const fx = await newRepo();
      const ok = await createPullRequest(fx, { number: 1, commits: [{ message: 'ok', files: { 'ok.txt': 'ok\n' } }] });
      const bad = await createPullRequest(fx, { number: 2, commits: [{ message: 'bad', files: { 'shared.txt': editLine(SHARED, 9, 'pr') } }] });
      const main = await pushToBranch(fx, 'main', [{ message: 'm', files: { 'shared.txt': editLine(SHARED, 9, 'main') } }]);
      for (const method of ['merge_commit', 'squash', 'rebase'] as const) {
        const result = await provider.mergePullRequests(fx.repo, {
          targetBranch: 'main',
          expectedHeadSha: main,
          method,
          pullRequests: [ok, bad].map((p) => ({ number: p.number, headSha: p.headSha, title: 't', author: 'a' })),
        });
        expect(result, method).to.deep.equal({ ok: false, reason: 'conflict', prNumber: 2, conflictedFiles: ['shared.txt'] });
      }
      expect(await branchSha(fx, 'main')).to.equal(main);
    });

    it('a direct merge of one pull request needs no expected tree', async () => {
      const fx = await newRepo();
      const pr = await createPullRequest(fx, {
        number: 4,
        commits: [{ message: 'x', files: { 'x.txt': 'x\n' } }],
        metadata: { title: 'Direct', headBranch: 'feature/x' },
      });
      const result = await provider.mergePullRequests(fx.repo, {
        targetBranch: 'main',
        expectedHeadSha: fx.initialSha,
        method: 'merge_commit',
        pullRequests: [{ number: 4, headSha: pr.headSha, title: 'Direct', author: 'a', headBranch: 'feature/x' }],
      });
      expect(result.ok).to.equal(true);
      expect((await listCommits(fx, 'main', { limit: 1 }))[0]?.subject).to.equal('Merge pull request #4 from feature/x');
    });

    it('serializes writes to one repository inside a process', async () => {
      const fx = await newRepo();
      const prs = await threePullRequests(fx);
      const builds = await Promise.all(
        prs.map((pr, i) => provider.buildTestBranch(fx.repo, { branch: `t/parallel-${i}`, baseSha: fx.initialSha, pullRequests: [pr] })),
      );
      expect(builds.every((b) => b.ok)).to.equal(true);
      for (let i = 0; i < 3; i++) expect(await branchSha(fx, `t/parallel-${i}`)).to.be.a('string');
    });
  });

  describe('deleteBranch', () => {
    it('deletes a branch, reports a missing one, and honours the expected sha', async () => {
      const fx = await newRepo();
      const prs = await threePullRequests(fx);
      const built = await provider.buildTestBranch(fx.repo, { branch: 'trunk-merge/pr-1/x', baseSha: fx.initialSha, pullRequests: prs.slice(0, 1) });
      if (!built.ok) throw new Error('conflict');
      expect(await provider.deleteBranch(fx.repo, 'trunk-merge/pr-1/x', fx.initialSha)).to.equal('moved');
      expect(await branchSha(fx, 'trunk-merge/pr-1/x')).to.equal(built.sha);
      expect(await provider.deleteBranch(fx.repo, 'trunk-merge/pr-1/x', built.sha)).to.equal('deleted');
      expect(await branchSha(fx, 'trunk-merge/pr-1/x')).to.equal(null);
      expect(await provider.deleteBranch(fx.repo, 'trunk-merge/pr-1/x')).to.equal('not_found');
      await setRef(fx, 'refs/heads/scratch', fx.initialSha);
      expect(await provider.deleteBranch(fx.repo, 'scratch')).to.equal('deleted');
      // The pull request's commits stay reachable from its own ref.
      expect(await resolve(fx, 'refs/pull/1/head')).to.equal(prs[0]?.headSha);
    });
  });

  describe('plumbing the guarantees rest on', () => {
    it('moves refs in one transaction: a stale expected value writes none of them', async () => {
      const fx = await newRepo();
      const next = await commit(fx, fx.initialSha, { message: 'next', files: { 'n.txt': 'n\n' } });
      const git = new GitRepository(fx.dir, BOT);
      const stale = await git.updateRefs(
        [
          { ref: 'refs/pull/1/merged', newSha: next },
          { ref: 'refs/heads/main', newSha: next, oldSha: next },
        ],
        'test',
      );
      expect(stale).to.equal(false);
      expect(await git.refTarget('refs/pull/1/merged')).to.equal(null);
      expect(await git.refTarget('refs/heads/main')).to.equal(fx.initialSha);
      expect(await git.updateRefs([{ ref: 'refs/heads/new', newSha: next, oldSha: null }], 'test')).to.equal(true);
      expect(await git.updateRefs([{ ref: 'refs/heads/new', newSha: next, oldSha: null }], 'test')).to.equal(false);
      expect(await git.updateRefs([{ ref: 'refs/heads/main', newSha: next, oldSha: fx.initialSha }], 'test')).to.equal(true);
      expect(await branchSha(fx, 'main')).to.equal(next);
    });

    it('git failures carry the command and what git said', async () => {
      const fx = await newRepo();
      const err = await rejectionOf(runGit(['cat-file', 'commit', 'f'.repeat(40)], { gitDir: fx.dir }));
      expect(err).to.be.instanceOf(GitCommandError);
      expect((err as GitCommandError).args).to.deep.equal(['cat-file', 'commit', 'f'.repeat(40)]);
      expect((err as GitCommandError).stderr).to.match(/fatal/);
      expect(err.message).to.match(/^git cat-file commit f+ failed \(exit 128\): fatal/);
    });

    it('aborts a command whose output exceeds the bound', async () => {
      const fx = await newRepo({ 'big.txt': 'y'.repeat(10_000) });
      const err = await rejectionOf(runGit(['cat-file', 'blob', `${fx.initialSha}:big.txt`], { gitDir: fx.dir, maxOutputBytes: 1000 }));
      expect(err.message).to.match(/output exceeded 1000 bytes/);
    });

    it('ignores GIT_* variables of the calling process', async () => {
      const fx = await newRepo();
      const saved = process.env.GIT_DIR;
      process.env.GIT_DIR = '/nonexistent';
      try {
        expect(await provider.branchHead(fx.repo, 'main')).to.equal(fx.initialSha);
      } finally {
        if (saved === undefined) delete process.env.GIT_DIR;
        else process.env.GIT_DIR = saved;
      }
    });

    it('runs tasks with one key in call order, and a failure does not block the next', async () => {
      const serializer = new KeyedSerializer();
      const order: string[] = [];
      // The first task of 'k' finishes only once the task of another key has run.
      let otherRan: () => void = () => undefined;
      const otherHasRun = new Promise<void>((resolve) => (otherRan = resolve));
      const slow = serializer.run('k', async () => {
        await otherHasRun;
        order.push('slow');
        throw new Error('boom');
      });
      const fast = serializer.run('k', async () => {
        order.push('fast');
        return 1;
      });
      const other = serializer.run('other', async () => {
        order.push('other');
        otherRan();
      });
      expect(await rejectionOf(slow)).to.match(/boom/);
      expect(await fast).to.equal(1);
      await other;
      expect(order).to.deep.equal(['other', 'slow', 'fast']);
    });
  });

  describe('branchProtectionRequiredStatuses', () => {
    it('is null: bare repositories have no branch protection', async () => {
      const fx = await newRepo();
      expect(await provider.branchProtectionRequiredStatuses(fx.repo, 'main')).to.equal(null);
    });
  });
});
