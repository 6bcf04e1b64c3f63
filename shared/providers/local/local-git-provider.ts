// The forge made of bare repositories on disk (the embedded default and the end-to-end tests).
//
// Conventions (docs/local-git-provider.md):
// - repository {host, owner, name} = `<root>/<host>/<owner>/<name>.git`;
// - pull request N = the ref `refs/pull/N/head`, described by the optional `pulls/N.json` inside
//   the bare repository (title, author, base, state, draft, headBranch); without it the title
//   and author come from the head commit, the base is unknown (null) and the state is open;
// - merging pull requests records `refs/pull/N/merged` (the commit that completed it on the
//   target) in the same ref transaction that moves the target, and from then on the pull
//   request reads as closed and merged, as on a hosted forge;
// - the `url` of pull request N is `file://<repository directory>/pull/N`, a label for humans
//   shaped like a forge link, not a path that exists.
import { pathToFileURL } from 'node:url';
import DataLoader from 'dataloader';
import type { MergeMethod } from '../../merge-queue/domain/model.js';
import type { RepoRef } from '../../platform/repo-ref.js';
import type {
  BuildTestBranchInput,
  BuildTestBranchResult,
  DeleteBranchResult,
  GitProvider,
  MergePullRequest,
  MergePullRequestsInput,
  MergePullRequestsResult,
  ProviderMergeability,
  PullRequestInfo,
} from '../../merge-queue/services/provider.js';
import { branchName, branchRef, objectId, pullNumber, treePath } from './git-names.js';
import { GitRepository, type RefEntry } from './git-repository.js';
import type { GitIdentity } from './git-runner.js';
import { KeyedSerializer } from '../keyed-serializer.js';
import { readPullMetadata } from './pull-metadata.js';
import { conventionalRepositoryPath, locateRepository } from './repo-path.js';

export interface LocalGitProviderOptions {
  /** LOCAL_GIT_ROOT. */
  root: string;
  /** Committer (and author of merge commits) of every commit the service writes. */
  committer?: GitIdentity;
  /** readFile refuses larger files (default 1 MiB). */
  maxFileBytes?: number;
}

export const DEFAULT_COMMITTER: GitIdentity = { name: 'openmq', email: 'openmq@localhost' };
const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

export class RepositoryNotFoundError extends Error {
  constructor(readonly repo: RepoRef) {
    super(`no local repository ${repo.host}/${repo.owner}/${repo.name}`);
    this.name = 'RepositoryNotFoundError';
  }
}

/** A test branch of that name exists already and holds something else than the requested build. */
export class BranchExistsError extends Error {
  constructor(readonly branch: string) {
    super(`branch ${branch} already exists with different content`);
    this.name = 'BranchExistsError';
  }
}

const HEAD_REF = /^refs\/pull\/(\d+)\/head$/;
const MERGED_REF = /^refs\/pull\/(\d+)\/merged$/;

export class LocalGitProvider implements GitProvider {
  readonly kind = 'local';
  private readonly root: string;
  private readonly committer: GitIdentity;
  private readonly maxFileBytes: number;
  /** Writes to one repository run one at a time within this process. */
  private readonly writes = new KeyedSerializer();
  /**
   * Where each repository was found by the last existence check, by its conventional path.
   * The registry checks existence (repositoryExists) before every use case, so the calls that
   * follow reuse that answer rather than looking again (two stats, more for a case-insensitive match).
   */
  private readonly located = new Map<string, string>();
  /** Pull request reads of one repository, batched: one ref listing for the reads that arrive together. */
  private readonly pullLoaders = new Map<string, DataLoader<number, PullRequestInfo | null>>();

  constructor(opts: LocalGitProviderOptions) {
    this.root = opts.root;
    this.committer = opts.committer ?? DEFAULT_COMMITTER;
    this.maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  }

  private async open(repo: RepoRef): Promise<GitRepository> {
    const dir = this.located.get(conventionalRepositoryPath(this.root, repo)) ?? (await this.locate(repo));
    if (!dir) throw new RepositoryNotFoundError(repo);
    return new GitRepository(dir, this.committer);
  }

  /** Looks for the repository on disk and remembers the answer (a repository that went away is forgotten). */
  private async locate(repo: RepoRef): Promise<string | null> {
    const key = conventionalRepositoryPath(this.root, repo);
    const dir = await locateRepository(this.root, repo);
    if (dir) this.located.set(key, dir);
    else this.located.delete(key);
    return dir;
  }

  private write<T>(git: GitRepository, task: () => Promise<T>): Promise<T> {
    return this.writes.run(git.dir, task);
  }

  async repositoryExists(repo: RepoRef): Promise<boolean> {
    try {
      return (await this.locate(repo)) !== null;
    } catch {
      // A name that could not be a repository path simply names no repository.
      return false;
    }
  }

  async branchHead(repo: RepoRef, branch: string): Promise<string | null> {
    const ref = branchRef(branch);
    const git = await this.open(repo);
    return git.refTarget(ref);
  }

  async getPullRequest(repo: RepoRef, number: number): Promise<PullRequestInfo | null> {
    const n = pullNumber(number);
    const git = await this.open(repo);
    return this.pullLoader(git).load(n);
  }

  /**
   * The batching reader of one repository's pull requests. A batch starts as soon as no other
   * batch of that repository is reading: what arrives meanwhile waits and goes in the next one,
   * so a burst of submissions costs one git process per batch rather than one per submission.
   */
  private pullLoader(git: GitRepository): DataLoader<number, PullRequestInfo | null> {
    const existing = this.pullLoaders.get(git.dir);
    if (existing) return existing;
    let reading: Promise<unknown> | null = null;
    const loader = new DataLoader<number, PullRequestInfo | null>(
      (numbers) => {
        const batch = this.readPulls(git, numbers);
        const done = () => {
          reading = null;
        };
        reading = batch.then(done, done);
        return batch;
      },
      {
        // A read is always fresh (no cache); only reads waiting at the same time are shared.
        cache: false,
        batchScheduleFn: (dispatch) => {
          if (reading) void reading.then(dispatch, dispatch);
          else setImmediate(dispatch);
        },
      },
    );
    this.pullLoaders.set(git.dir, loader);
    return loader;
  }

  /** One ref listing for the given pull requests; a pull request that cannot be described fails alone. */
  private async readPulls(git: GitRepository, numbers: readonly number[]): Promise<Array<PullRequestInfo | null | Error>> {
    const refs = await git.refs(numbers.flatMap((n) => [`refs/pull/${n}/head`, `refs/pull/${n}/merged`]));
    const byName = new Map(refs.map((r) => [r.ref, r]));
    return Promise.all(
      numbers.map(async (n) => {
        const head = byName.get(`refs/pull/${n}/head`);
        if (!head) return null;
        try {
          return await this.describePull(git, n, head, byName.has(`refs/pull/${n}/merged`));
        } catch (err) {
          return err instanceof Error ? err : new Error(String(err));
        }
      }),
    );
  }

  async listOpenPullRequests(repo: RepoRef): Promise<PullRequestInfo[]> {
    const git = await this.open(repo);
    const { heads, merged } = await this.pullRefs(git);
    const numbers = [...heads.keys()].filter((n) => !merged.has(n) && Number.isSafeInteger(n) && n > 0).sort((a, b) => a - b);
    const pulls = await Promise.all(numbers.map((n) => this.describePull(git, n, heads.get(n) as RefEntry, false)));
    return pulls.filter((p) => p.state === 'open');
  }

  async getPullRequests(repo: RepoRef, numbers: readonly number[]): Promise<Map<number, PullRequestInfo | null>> {
    const git = await this.open(repo);
    // One ref listing for all of them: a poll of a busy queue costs one git process, not one per pull request.
    const { heads, merged } = await this.pullRefs(git);
    const result = new Map<number, PullRequestInfo | null>();
    for (const number of numbers) {
      const n = pullNumber(number);
      const head = heads.get(n);
      result.set(number, head ? await this.describePull(git, n, head, merged.has(n)) : null);
    }
    return result;
  }

  private async pullRefs(git: GitRepository): Promise<{ heads: Map<number, RefEntry>; merged: Set<number> }> {
    const heads = new Map<number, RefEntry>();
    const merged = new Set<number>();
    for (const entry of await git.refs(['refs/pull/'])) {
      const head = HEAD_REF.exec(entry.ref);
      if (head?.[1]) heads.set(Number(head[1]), entry);
      const done = MERGED_REF.exec(entry.ref);
      if (done?.[1]) merged.add(Number(done[1]));
    }
    return { heads, merged };
  }

  private async describePull(git: GitRepository, n: number, head: RefEntry, merged: boolean): Promise<PullRequestInfo> {
    const meta = await readPullMetadata(git.dir, n);
    return {
      number: n,
      title: meta?.title ?? head.subject,
      author: meta?.author ?? head.authorName,
      baseBranch: meta?.base ?? null,
      headSha: head.sha,
      headBranch: meta?.headBranch ?? null,
      state: merged ? 'closed' : (meta?.state ?? 'open'),
      merged,
      draft: meta?.draft ?? false,
      // Local repositories have no forks: every pull request's head is a ref of the repository.
      fromFork: false,
      labels: meta?.labels ?? [],
      url: `${pathToFileURL(git.dir).href}/pull/${n}`,
    };
  }

  async mergeability(repo: RepoRef, shas: { baseSha: string; headSha: string }): Promise<ProviderMergeability> {
    const base = objectId(shas.baseSha, 'baseSha');
    const head = objectId(shas.headSha, 'headSha');
    const git = await this.open(repo);
    const merge = await git.mergeCommits(base, head);
    return merge.clean ? 'mergeable' : 'not_mergeable';
  }

  async changedPaths(repo: RepoRef, shas: { baseSha: string; headSha: string }, limit: number): Promise<string[] | null> {
    const base = objectId(shas.baseSha, 'baseSha');
    const head = objectId(shas.headSha, 'headSha');
    const git = await this.open(repo);
    const paths = await git.changedPaths(base, head);
    return paths === null || paths.length > limit ? null : paths;
  }

  async isAncestor(repo: RepoRef, ancestorSha: string, descendantSha: string): Promise<boolean> {
    const ancestor = objectId(ancestorSha, 'ancestorSha');
    const descendant = objectId(descendantSha, 'descendantSha');
    const git = await this.open(repo);
    return git.isAncestor(ancestor, descendant);
  }

  async readFile(repo: RepoRef, sha: string, path: string): Promise<string | null> {
    const commit = objectId(sha);
    const file = treePath(path);
    const git = await this.open(repo);
    const [commitInfo, fileInfo] = await git.describeObjects([commit, `${commit}:${file}`]);
    // An unknown commit is the caller's mistake, not an absent file: say so loudly.
    if (!commitInfo || commitInfo.type !== 'commit') throw new Error(`${commit} is not a commit in ${git.dir}`);
    if (!fileInfo || fileInfo.type !== 'blob') return null;
    const bytes = await git.readBlob(fileInfo.oid, file, fileInfo.size, this.maxFileBytes);
    return bytes.toString('utf8');
  }

  async branchProtectionRequiredStatuses(repo: RepoRef, branch: string): Promise<string[] | null> {
    branchName(branch);
    await this.open(repo);
    // Bare repositories have no branch protection.
    return null;
  }

  async buildTestBranch(repo: RepoRef, input: BuildTestBranchInput): Promise<BuildTestBranchResult> {
    const ref = branchRef(input.branch);
    const baseSha = objectId(input.baseSha, 'baseSha');
    const pulls = input.pullRequests.map((p) => ({ number: pullNumber(p.number), headSha: objectId(p.headSha, `head of #${p.number}`), title: p.title }));
    const git = await this.open(repo);
    return this.write(git, async () => {
      let sha = baseSha;
      let tree = await git.treeOf(baseSha);
      for (const pr of pulls) {
        const merge = await git.mergeCommits(sha, pr.headSha);
        if (!merge.clean) return { ok: false, reason: 'conflict', conflictPrNumber: pr.number, conflictedFiles: merge.conflictedFiles };
        tree = merge.tree;
        // The branch (hence the test run id) in every message makes each run's commits unique:
        // two runs of the same combination must not share a sha, or CI statuses reported for
        // the first would decide the second.
        const message = `${subjectLine(`Merge pull request #${pr.number}`, pr.title)}\n\nTest branch: ${input.branch}\n`;
        sha = await git.commitTree({ tree, parents: [sha, pr.headSha], message });
      }
      if (await git.updateRefs([{ ref, newSha: sha, oldSha: null }], `openmq: build test branch ${input.branch}`)) {
        return { ok: true, sha, tree };
      }
      // A retried build (the job ran before but its result was lost) finds its own branch: the
      // same tree on a branch named after the same test run is the same build.
      const existing = await git.refTarget(ref);
      if (existing && (await git.treeOf(existing)) === tree) return { ok: true, sha: existing, tree };
      throw new BranchExistsError(input.branch);
    });
  }

  async mergePullRequests(repo: RepoRef, input: MergePullRequestsInput): Promise<MergePullRequestsResult> {
    const ref = branchRef(input.targetBranch);
    const expectedHead = objectId(input.expectedHeadSha, 'expectedHeadSha');
    const expectedTree = input.expectedTree === undefined ? undefined : objectId(input.expectedTree, 'expectedTree');
    const pulls = input.pullRequests.map((p) => ({ ...p, number: pullNumber(p.number), headSha: objectId(p.headSha, `head of #${p.number}`) }));
    const git = await this.open(repo);
    return this.write(git, async () => {
      // Checked first to avoid useless work; the compare-and-swap at the end is what guarantees it.
      const current = await git.refTarget(ref);
      if (current !== expectedHead) return { ok: false, reason: 'target_moved', actualHeadSha: current };

      let head = expectedHead;
      let tree = await git.treeOf(expectedHead);
      const mergedShas: Record<number, string> = {};
      for (const pr of pulls) {
        const step = await this.applyPull(git, input.method, pr, head, tree);
        if (!step.ok) return { ok: false, reason: 'conflict', prNumber: pr.number, conflictedFiles: step.conflictedFiles };
        head = step.head;
        tree = step.tree;
        mergedShas[pr.number] = head;
      }
      if (expectedTree !== undefined && tree !== expectedTree) {
        return { ok: false, reason: 'tree_mismatch', expectedTree, actualTree: tree };
      }
      const updates = [
        { ref, newSha: head, oldSha: expectedHead },
        ...pulls.map((pr) => ({ ref: `refs/pull/${pr.number}/merged`, newSha: mergedShas[pr.number] ?? head })),
      ];
      const numbers = pulls.map((p) => `#${p.number}`).join(', ');
      if (!(await git.updateRefs(updates, `openmq: merge ${numbers} (${input.method})`))) {
        return { ok: false, reason: 'target_moved', actualHeadSha: await git.refTarget(ref) };
      }
      return { ok: true, newHeadSha: head, mergedShas };
    });
  }

  /** Puts one pull request's changes on top of `head` with the queue's merge method. Writes objects, no refs. */
  private async applyPull(
    git: GitRepository,
    method: MergeMethod,
    pr: MergePullRequest,
    head: string,
    tree: string,
  ): Promise<{ ok: true; head: string; tree: string } | { ok: false; conflictedFiles: string[] }> {
    if (method === 'rebase') return this.replayPull(git, pr, head, tree);
    const merge = await git.mergeCommits(head, pr.headSha);
    if (!merge.clean) return { ok: false, conflictedFiles: merge.conflictedFiles };
    if (method === 'merge_commit') {
      const from = pr.headBranch ? ` from ${pr.headBranch}` : '';
      const message = `Merge pull request #${pr.number}${from}\n\n${pr.title}\n`;
      return { ok: true, head: await git.commitTree({ tree: merge.tree, parents: [head, pr.headSha], message }), tree: merge.tree };
    }
    // squash: one commit with the pull request's changes, written by whoever wrote its last commit.
    const last = await git.rawCommit(pr.headSha);
    const message = `${oneLine(pr.title)} (#${pr.number})\n`.trimStart();
    const sha = await git.commitTree({
      tree: merge.tree,
      parents: [head],
      message,
      author: { name: last.author.name, email: last.author.email },
    });
    return { ok: true, head: sha, tree: merge.tree };
  }

  /**
   * rebase: replays the pull request's own commits (its first-parent line not yet on the target,
   * merges skipped, oldest first), keeping author, author date and message; commits whose
   * changes are already there are dropped, as `git rebase` does.
   */
  private async replayPull(
    git: GitRepository,
    pr: MergePullRequest,
    head: string,
    tree: string,
  ): Promise<{ ok: true; head: string; tree: string } | { ok: false; conflictedFiles: string[] }> {
    const list = await git.text(['rev-list', '--reverse', '--first-parent', '--no-merges', pr.headSha, '--not', head]);
    const commits = list === '' ? [] : list.split('\n');
    for (const sha of commits) {
      const commit = await git.rawCommit(sha);
      const parent = commit.parents[0];
      const baseTree = parent ? await git.treeOf(parent) : await git.emptyTree();
      const merge = await git.mergeTreesWithBase(baseTree, tree, commit.tree);
      if (!merge.clean) return { ok: false, conflictedFiles: merge.conflictedFiles };
      if (merge.tree === tree) continue;
      head = await git.commitTree({ tree: merge.tree, parents: [head], message: commit.message, author: commit.author, encoding: commit.encoding });
      tree = merge.tree;
    }
    return { ok: true, head, tree };
  }

  async deleteBranch(repo: RepoRef, branch: string, expectedSha?: string): Promise<DeleteBranchResult> {
    const ref = branchRef(branch);
    const expected = expectedSha === undefined ? undefined : objectId(expectedSha, 'expectedSha');
    const git = await this.open(repo);
    return this.write(git, async () => {
      const current = await git.refTarget(ref);
      if (current === null) return 'not_found';
      if (expected !== undefined && current !== expected) return 'moved';
      if (await git.deleteRef(ref, current, `openmq: delete ${branch}`)) return 'deleted';
      return (await git.refTarget(ref)) === null ? 'not_found' : 'moved';
    });
  }
}

/** A title on one line: its line breaks would otherwise end the commit's subject. */
function oneLine(title: string): string {
  return title.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/** `prefix: title`, or the prefix alone for an empty title. */
function subjectLine(prefix: string, title: string): string {
  const text = oneLine(title);
  return text ? `${prefix}: ${text}` : prefix;
}
