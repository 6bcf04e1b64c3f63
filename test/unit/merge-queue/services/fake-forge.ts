// An in-memory forge for service unit tests: commits are file maps, pull requests file changes,
// the target branch moved only by compare-and-swap (the repositories are the simulation's
// in-memory ones).
import { createHash } from 'node:crypto';
import { repoKey, type RepoRef } from '../../../../shared/platform/repo-ref.js';
import type {
  BuildTestBranchInput,
  BuildTestBranchResult,
  DeleteBranchResult,
  GitProvider,
  MergePullRequestsInput,
  MergePullRequestsResult,
  ProviderMergeability,
  ProviderRegistry,
  PullRequestInfo,
} from '../../../../shared/merge-queue/services/provider.js';

const clone = <T>(value: T): T => structuredClone(value);

type Files = Record<string, string>;

interface FakeCommit {
  files: Files;
  parents: string[];
}

interface FakePull {
  info: PullRequestInfo;
  /** The files the pull request sets, on top of whatever it is merged onto. */
  changes: Files;
}

const digest = (value: unknown) => createHash('sha1').update(JSON.stringify(value)).digest('hex');

/**
 * One forge repository in memory. Commits are file maps; a pull request is a set of file
 * changes; putting a pull request on a tree conflicts when a file it sets already holds other
 * content. Branches move only by compare-and-swap, as the real providers' refs do.
 */
export class FakeForge implements GitProvider {
  readonly kind = 'fake';
  readonly commits = new Map<string, FakeCommit>();
  readonly branches = new Map<string, string>();
  readonly pulls = new Map<number, FakePull>();
  /** Every call that writes to the forge, in order (tests assert what happened, not how). */
  readonly writes: string[] = [];

  constructor(
    readonly repo: RepoRef,
    files: Files = { 'README.md': 'hello\n' },
  ) {
    this.branches.set('main', this.commit(files, []));
  }

  private commit(files: Files, parents: string[]): string {
    const sha = digest({ files, parents, n: this.commits.size });
    this.commits.set(sha, { files: { ...files }, parents });
    return sha;
  }

  private knows(repo: RepoRef): boolean {
    return repoKey(repo) === repoKey(this.repo);
  }

  /** Opens pull request `number` setting `changes` on top of main. */
  openPullRequest(number: number, changes: Files, title = `Change ${number}`): string {
    const headSha = this.commit({ ...this.commits.get(this.branches.get('main')!)!.files, ...changes }, [this.branches.get('main')!]);
    this.pulls.set(number, {
      changes,
      info: {
        number,
        title,
        author: `dev${number}`,
        baseBranch: 'main',
        headSha,
        headBranch: `feature/${number}`,
        state: 'open',
        merged: false,
        draft: false,
        fromFork: false,
        url: `fake://${number}`,
      },
    });
    return headSha;
  }

  /** Someone pushes to the target branch outside the queue. */
  pushToMain(changes: Files): string {
    const head = this.branches.get('main')!;
    const sha = this.commit({ ...this.commits.get(head)!.files, ...changes }, [head]);
    this.branches.set('main', sha);
    return sha;
  }

  filesAt(ref: string): Files {
    const sha = this.branches.get(ref) ?? ref;
    return { ...this.commits.get(sha)!.files };
  }

  private apply(files: Files, n: number): { ok: true; files: Files } | { ok: false; conflicted: string[] } {
    const pull = this.pulls.get(n);
    if (!pull) throw new Error(`no pull request #${n}`);
    const conflicted = Object.entries(pull.changes)
      .filter(([path, content]) => path in files && files[path] !== content)
      .map(([path]) => path);
    return conflicted.length > 0 ? { ok: false, conflicted } : { ok: true, files: { ...files, ...pull.changes } };
  }

  async repositoryExists(repo: RepoRef): Promise<boolean> {
    return this.knows(repo);
  }

  async branchHead(_repo: RepoRef, branch: string): Promise<string | null> {
    return this.branches.get(branch) ?? null;
  }

  async getPullRequest(_repo: RepoRef, number: number): Promise<PullRequestInfo | null> {
    const p = this.pulls.get(number);
    return p ? clone(p.info) : null;
  }

  async getPullRequests(repo: RepoRef, numbers: readonly number[]): Promise<Map<number, PullRequestInfo | null>> {
    const out = new Map<number, PullRequestInfo | null>();
    for (const n of numbers) out.set(n, await this.getPullRequest(repo, n));
    return out;
  }

  async listOpenPullRequests(): Promise<PullRequestInfo[]> {
    return [...this.pulls.values()].filter((p) => p.info.state === 'open').map((p) => clone(p.info));
  }

  async mergeability(_repo: RepoRef, shas: { baseSha: string; headSha: string }): Promise<ProviderMergeability> {
    const pull = [...this.pulls.values()].find((p) => p.info.headSha === shas.headSha);
    if (!pull) return 'not_mergeable';
    return this.apply(this.commits.get(shas.baseSha)!.files, pull.info.number).ok ? 'mergeable' : 'not_mergeable';
  }

  async isAncestor(_repo: RepoRef, ancestorSha: string, descendantSha: string): Promise<boolean> {
    const todo = [descendantSha];
    while (todo.length > 0) {
      const sha = todo.pop()!;
      if (sha === ancestorSha) return true;
      todo.push(...(this.commits.get(sha)?.parents ?? []));
    }
    return false;
  }

  async readFile(_repo: RepoRef, sha: string, path: string): Promise<string | null> {
    return this.commits.get(sha)?.files[path] ?? null;
  }

  async branchProtectionRequiredStatuses(): Promise<string[] | null> {
    return null;
  }

  async buildTestBranch(_repo: RepoRef, input: BuildTestBranchInput): Promise<BuildTestBranchResult> {
    const existing = this.branches.get(input.branch);
    if (existing) return { ok: true, sha: existing, tree: digest(this.commits.get(existing)!.files) };
    let files = this.commits.get(input.baseSha)!.files;
    for (const pr of input.pullRequests) {
      const next = this.apply(files, pr.number);
      if (!next.ok) return { ok: false, reason: 'conflict', conflictPrNumber: pr.number, conflictedFiles: next.conflicted };
      files = next.files;
    }
    const sha = this.commit(files, [input.baseSha]);
    this.branches.set(input.branch, sha);
    this.writes.push(`build ${input.branch}`);
    return { ok: true, sha, tree: digest(files) };
  }

  async mergePullRequests(_repo: RepoRef, input: MergePullRequestsInput): Promise<MergePullRequestsResult> {
    const head = this.branches.get(input.targetBranch) ?? null;
    if (head !== input.expectedHeadSha) return { ok: false, reason: 'target_moved', actualHeadSha: head };
    let files = this.commits.get(head)!.files;
    let tip = head;
    const mergedShas: Record<number, string> = {};
    for (const pr of input.pullRequests) {
      const next = this.apply(files, pr.number);
      if (!next.ok) return { ok: false, reason: 'conflict', prNumber: pr.number, conflictedFiles: next.conflicted };
      files = next.files;
      tip = this.commit(files, [tip]);
      mergedShas[pr.number] = tip;
    }
    if (input.expectedTree !== undefined && digest(files) !== input.expectedTree) {
      return { ok: false, reason: 'tree_mismatch', expectedTree: input.expectedTree, actualTree: digest(files) };
    }
    this.branches.set(input.targetBranch, tip);
    for (const pr of input.pullRequests) Object.assign(this.pulls.get(pr.number)!.info, { state: 'closed', merged: true });
    this.writes.push(`merge ${input.pullRequests.map((p) => `#${p.number}`).join(' ')}`);
    return { ok: true, newHeadSha: tip, mergedShas };
  }

  async deleteBranch(_repo: RepoRef, branch: string): Promise<DeleteBranchResult> {
    if (!this.branches.delete(branch)) return 'not_found';
    this.writes.push(`delete ${branch}`);
    return 'deleted';
  }

  registry(): ProviderRegistry {
    return { providerFor: async (repo) => (this.knows(repo) ? this : null) };
  }
}
