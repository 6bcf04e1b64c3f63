// The forge of a simulation: a commit is the set of changes it holds (pull requests by name, and
// pushes made outside the queue), kept as a chain of commits so a long history costs memory in
// proportion to its length. The target branch moves only by compare-and-swap, as real refs do.
// A request no correct engine makes (merging a pull request twice, merging a tree other than the
// tested one) is an engine defect here, so it throws instead of being refused.
import { createHash } from 'node:crypto';
import type { RepoRef } from '../../platform/repo-ref.js';
import { repoKey } from '../../platform/repo-ref.js';
import type {
  BuildTestBranchInput,
  BuildTestBranchResult,
  DeleteBranchResult,
  GitProvider,
  MergePullRequestsInput,
  MergePullRequestsResult,
  ProviderRegistry,
  PullRequestInfo,
} from '../services/provider.js';
import { InvariantViolation } from './invariant-violation.js';

interface Commit {
  parent: string | null;
  changes: string[];
  /** Order-independent digest of every change the commit holds (a tree, as sets compare). */
  tree: bigint;
}

export interface ForgeModel {
  /** The change a pull request brings (its name in commit contents). */
  changeOf(prNumber: number): string;
  /** Whether a change conflicts with anything below it on a test branch. */
  conflicts(change: string): boolean;
}

export interface ForgeMerge {
  prNumbers: number[];
  newHeadSha: string;
}

const MASK = (1n << 64n) - 1n;
const digest = (change: string): bigint => BigInt(`0x${createHash('sha1').update(change).digest('hex').slice(0, 16)}`);

export class SimulatedForge implements GitProvider {
  readonly kind = 'simulated';
  private readonly commits = new Map<string, Commit>();
  private readonly branches = new Map<string, string>();
  private readonly merged = new Map<number, string>();
  private shaCounter = 0;
  /** Every merge, in order. */
  readonly merges: ForgeMerge[] = [];

  constructor(
    readonly repo: RepoRef,
    readonly targetBranch: string,
    private readonly model: ForgeModel,
    initialSha = 'sha0',
  ) {
    this.commits.set(initialSha, { parent: null, changes: [], tree: 0n });
    this.branches.set(targetBranch, initialSha);
  }

  get head(): string {
    return this.branches.get(this.targetBranch)!;
  }

  /** Someone pushes `change` to the target branch outside the queue; returns the new head. */
  pushOutside(change: string, sha = `sha${++this.shaCounter}`): string {
    this.commit(sha, this.head, [change]);
    this.branches.set(this.targetBranch, sha);
    return sha;
  }

  /** The changes a commit holds, oldest first. */
  content(sha: string): string[] {
    const chain: string[][] = [];
    for (let c = this.commits.get(sha); c; c = c.parent === null ? undefined : this.commits.get(c.parent)) chain.push(c.changes);
    return chain.reverse().flat();
  }

  /** True when a commit holds a change `matches` accepts (without listing its content). */
  holds(sha: string, matches: (change: string) => boolean): boolean {
    for (let c = this.commits.get(sha); c; c = c.parent === null ? undefined : this.commits.get(c.parent)) {
      if (c.changes.some(matches)) return true;
    }
    return false;
  }

  private commit(sha: string, parent: string, changes: string[]): void {
    const base = this.commits.get(parent);
    if (!base) throw new InvariantViolation(`unknown commit ${parent}`);
    const tree = changes.reduce((t, c) => (t ^ digest(c)) & MASK, base.tree);
    this.commits.set(sha, { parent, changes, tree });
  }

  async repositoryExists(repo: RepoRef): Promise<boolean> {
    return repoKey(repo) === repoKey(this.repo);
  }

  async branchHead(_repo: RepoRef, branch: string): Promise<string | null> {
    return this.branches.get(branch) ?? null;
  }

  async getPullRequest(_repo: RepoRef, number: number): Promise<PullRequestInfo | null> {
    const headSha = this.merged.get(number);
    if (headSha === undefined) return null;
    const info = { number, title: `PR ${number}`, author: 'sim', baseBranch: this.targetBranch, headSha, headBranch: null };
    return { ...info, state: 'closed', merged: true, draft: false, fromFork: false, url: `simulation://${number}` };
  }

  /** Only merged pull requests are known: the simulation's pull requests are open otherwise. */
  async getPullRequests(repo: RepoRef, numbers: readonly number[]): Promise<Map<number, PullRequestInfo | null>> {
    const out = new Map<number, PullRequestInfo | null>();
    for (const n of numbers) out.set(n, await this.getPullRequest(repo, n));
    return out;
  }

  async listOpenPullRequests(): Promise<PullRequestInfo[]> {
    return [];
  }

  async mergeability(): Promise<'mergeable'> {
    return 'mergeable';
  }

  async isAncestor(_repo: RepoRef, ancestorSha: string, descendantSha: string): Promise<boolean> {
    for (let sha: string | null = descendantSha; sha !== null; sha = this.commits.get(sha)?.parent ?? null) {
      if (sha === ancestorSha) return true;
    }
    return false;
  }

  async readFile(): Promise<null> {
    return null;
  }

  async branchProtectionRequiredStatuses(): Promise<null> {
    return null;
  }

  async buildTestBranch(_repo: RepoRef, input: BuildTestBranchInput): Promise<BuildTestBranchResult> {
    const existing = this.branches.get(input.branch);
    if (existing) return { ok: true, sha: existing, tree: this.commits.get(existing)!.tree.toString(16) };
    const changes = input.pullRequests.map((p) => this.model.changeOf(p.number));
    const conflicting = changes.findIndex((c, i) => i > 0 && this.model.conflicts(c));
    if (conflicting >= 0) return { ok: false, reason: 'conflict', conflictPrNumber: input.pullRequests[conflicting]!.number, conflictedFiles: [] };
    const sha = `sha${++this.shaCounter}`;
    this.commit(sha, input.baseSha, changes);
    this.branches.set(input.branch, sha);
    return { ok: true, sha, tree: this.commits.get(sha)!.tree.toString(16) };
  }

  async mergePullRequests(_repo: RepoRef, input: MergePullRequestsInput): Promise<MergePullRequestsResult> {
    const head = this.head;
    if (head !== input.expectedHeadSha) return { ok: false, reason: 'target_moved', actualHeadSha: head };
    const mergedShas: Record<number, string> = {};
    let tip = head;
    for (const pr of input.pullRequests) {
      if (this.merged.has(pr.number)) throw new InvariantViolation(`pull request #${pr.number} would merge twice`);
      const sha = `sha${++this.shaCounter}`;
      this.commit(sha, tip, [this.model.changeOf(pr.number)]);
      mergedShas[pr.number] = sha;
      tip = sha;
    }
    const tree = this.commits.get(tip)!.tree.toString(16);
    if (input.expectedTree !== undefined && tree !== input.expectedTree) {
      throw new InvariantViolation(`merged tree {${this.content(tip).join(',')}} differs from the tested one`);
    }
    this.branches.set(this.targetBranch, tip);
    for (const pr of input.pullRequests) this.merged.set(pr.number, pr.headSha);
    this.merges.push({ prNumbers: input.pullRequests.map((p) => p.number), newHeadSha: tip });
    return { ok: true, newHeadSha: tip, mergedShas };
  }

  async deleteBranch(_repo: RepoRef, branch: string): Promise<DeleteBranchResult> {
    return this.branches.delete(branch) ? 'deleted' : 'not_found';
  }

  registry(): ProviderRegistry {
    return { providerFor: async (repo) => ((await this.repositoryExists(repo)) ? this : null) };
  }
}
