// The forge the simulator and the service unit tests run the engine against: repositories held in
// memory that behave as the real providers do on what the engine relies on (the provider contract
// suite holds all three to it). A commit records only the files it changes and points to its
// parent, so a long simulated history costs memory in proportion to its length; a file is read by
// finding the nearest ancestor that wrote it (ancestors are found by binary lifting), and a tree
// is an order-independent digest of its files kept up to date commit by commit. Pull requests are
// merged as git merges them: file by file against their merge base, lines by three-way merge.
import { createHash } from 'node:crypto';
import { diff3Merge } from 'node-diff3';
import { repoKey, type RepoRef } from '../../platform/repo-ref.js';
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
  TestBranchPullRequest,
} from '../services/provider.js';

/** File contents by path; `null` deletes the file. */
export type FileChanges = Readonly<Record<string, string | null>>;

export interface PullRequestSpec {
  number: number;
  /** One entry per commit, oldest first. */
  commits: readonly FileChanges[];
  title?: string;
  author?: string;
  /** The branch the pull request targets (default `main`); it is forked from that branch's head. */
  base?: string;
  headBranch?: string;
  /** A name for the head commit, when a test wants a readable one. */
  headSha?: string;
  labels?: string[];
}

export interface ForgeMerge {
  prNumbers: number[];
  newHeadSha: string;
}

/** Told of every merge the forge is asked for, with its answer (the simulator's invariants). */
export type MergeObserver = (repo: MemoryRepository, input: MergePullRequestsInput, result: MergePullRequestsResult) => void;

interface Commit {
  sha: string;
  parent: Commit | null;
  depth: number;
  /** jumps[k] is the ancestor 2^k generations up. */
  jumps: Commit[];
  changes: ReadonlyMap<string, string | null>;
  /** XOR of the digests of every (path, content) the commit's tree holds. */
  tree: bigint;
}

interface Pull {
  info: PullRequestInfo;
}

type Applied = { ok: true; changes: Map<string, string | null> } | { ok: false; conflictedFiles: string[] };

const MASK = (1n << 64n) - 1n;
const fileDigest = (path: string, content: string): bigint =>
  BigInt(`0x${createHash('sha1').update(path).update('\0').update(content).digest('hex').slice(0, 16)}`);

/** Three-way merge of one file's lines; null when the two sides change the same lines differently. */
function mergeLines(ours: string, base: string, theirs: string): string | null {
  const regions = diff3Merge(ours.split('\n'), base.split('\n'), theirs.split('\n'));
  const lines: string[] = [];
  for (const region of regions) {
    if (region.conflict) return null;
    lines.push(...(region.ok ?? []));
  }
  return lines.join('\n');
}

/** One repository: its commits, branches and pull requests. */
export class MemoryRepository {
  private readonly commits = new Map<string, Commit>();
  /** The commits that wrote each path, to read a file without walking the whole history. */
  private readonly writers = new Map<string, Commit[]>();
  private readonly branches = new Map<string, string>();
  private readonly pulls = new Map<number, Pull>();
  private counter = 0;
  /** Every merge, in order. */
  readonly merges: ForgeMerge[] = [];

  constructor(
    readonly ref: RepoRef,
    files: Readonly<Record<string, string>>,
    branch: string,
    initialSha?: string,
  ) {
    this.branches.set(branch, this.commit(null, new Map(Object.entries(files)), initialSha).sha);
  }

  // ----- what tests and the simulator do to the forge directly -----

  /** Opens a pull request forked from the head of its base branch; returns its head sha. */
  openPullRequest(spec: PullRequestSpec): string {
    if (this.pulls.has(spec.number)) throw new Error(`pull request #${spec.number} exists`);
    const base = spec.base ?? 'main';
    // Based on another open pull request's head branch (a stack): built on that pull request's head.
    const below = [...this.pulls.values()].find((p) => p.info.state === 'open' && p.info.headBranch === base);
    let tip = this.commitAt(below ? below.info.headSha : base);
    spec.commits.forEach((changes, i) => {
      tip = this.commit(tip, new Map(Object.entries(changes)), i === spec.commits.length - 1 ? spec.headSha : undefined);
    });
    this.pulls.set(spec.number, {
      info: {
        number: spec.number,
        title: spec.title ?? `Change ${spec.number}`,
        author: spec.author ?? `dev${spec.number}`,
        baseBranch: base,
        headSha: tip.sha,
        headBranch: spec.headBranch ?? `feature/${spec.number}`,
        state: 'open',
        merged: false,
        draft: false,
        fromFork: false,
        labels: [...(spec.labels ?? [])],
        url: `memory://${repoKey(this.ref)}/pull/${spec.number}`,
      },
    });
    return tip.sha;
  }

  /** Someone pushes a commit to a branch outside the queue; returns its sha. */
  push(branch: string, changes: FileChanges, sha?: string): string {
    const commit = this.commit(this.commitAt(branch), new Map(Object.entries(changes)), sha);
    this.branches.set(branch, commit.sha);
    return commit.sha;
  }

  createBranch(branch: string, at: string): void {
    if (this.branches.has(branch)) throw new Error(`branch ${branch} exists`);
    this.branches.set(branch, this.commitAt(at).sha);
  }

  head(branch: string): string | null {
    return this.branches.get(branch) ?? null;
  }

  branchNames(): string[] {
    return [...this.branches.keys()];
  }

  /** Every file at a branch or commit, in the order they were first written. */
  filesAt(ref: string): Record<string, string> {
    const chain: Commit[] = [];
    for (let c: Commit | null = this.commitAt(ref); c; c = c.parent) chain.push(c);
    const files = new Map<string, string | null>();
    for (const c of chain.reverse()) for (const [path, content] of c.changes) files.set(path, content);
    const out: Record<string, string> = {};
    for (const [path, content] of files) if (content !== null) out[path] = content;
    return out;
  }

  fileAt(ref: string, path: string): string | null {
    return this.read(this.commitAt(ref), path);
  }

  treeOf(ref: string): string {
    return this.treeId(this.commitAt(ref));
  }

  // ----- the provider's operations, for one repository -----

  pullRequest(number: number): PullRequestInfo | null {
    const p = this.pulls.get(number);
    return p ? structuredClone(p.info) : null;
  }

  openPullRequests(): PullRequestInfo[] {
    return [...this.pulls.values()]
      .filter((p) => p.info.state === 'open')
      .sort((a, b) => a.info.number - b.info.number)
      .map((p) => structuredClone(p.info));
  }

  mergeability(baseSha: string, headSha: string): ProviderMergeability {
    return this.apply(this.commitAt(baseSha), this.commitAt(headSha)).ok ? 'mergeable' : 'not_mergeable';
  }

  changedPaths(baseSha: string, headSha: string): string[] | null {
    const head = this.commitAt(headSha);
    const base = this.mergeBase(this.commitAt(baseSha), head);
    if (!base) return null;
    return [...this.writtenSince(head, base)].filter((path) => this.read(head, path) !== this.read(base, path)).sort();
  }

  /**
   * The paths whose content differs between two commits: of those written on either side since
   * their merge base, the ones that read differently (without one, of every path of both trees).
   * Costs the commits since the merge base, not the history.
   */
  differingPaths(aRef: string, bRef: string): string[] {
    const a = this.commitAt(aRef);
    const b = this.commitAt(bRef);
    const base = this.mergeBase(a, b);
    const paths = base
      ? new Set([...this.writtenSince(a, base), ...this.writtenSince(b, base)])
      : new Set([...Object.keys(this.filesAt(aRef)), ...Object.keys(this.filesAt(bRef))]);
    return [...paths].filter((path) => this.read(a, path) !== this.read(b, path));
  }

  isAncestor(ancestorSha: string, descendantSha: string): boolean {
    const a = this.commitAt(ancestorSha);
    const d = this.commitAt(descendantSha);
    return a.depth <= d.depth && this.ancestorAt(d, a.depth) === a;
  }

  buildTestBranch(input: BuildTestBranchInput): BuildTestBranchResult {
    const stacked = this.stack(this.commitAt(input.baseSha), input.pullRequests);
    if (!stacked.ok) return { ok: false, reason: 'conflict', conflictPrNumber: stacked.prNumber, conflictedFiles: stacked.conflictedFiles };
    const tree = this.treeId(stacked.tip);
    const existing = this.branches.get(input.branch);
    if (existing !== undefined) {
      // A retried build finds its own branch: the same tree under the same test run's branch.
      if (this.treeOf(existing) === tree) return { ok: true, sha: existing, tree };
      throw new Error(`branch ${input.branch} exists with another tree`);
    }
    this.keep(stacked.made);
    this.branches.set(input.branch, stacked.tip.sha);
    return { ok: true, sha: stacked.tip.sha, tree };
  }

  mergePullRequests(input: MergePullRequestsInput): MergePullRequestsResult {
    const head = this.branches.get(input.targetBranch) ?? null;
    if (head !== input.expectedHeadSha) return { ok: false, reason: 'target_moved', actualHeadSha: head };
    const stacked = this.stack(this.commitAt(head), input.pullRequests);
    if (!stacked.ok) return { ok: false, reason: 'conflict', prNumber: stacked.prNumber, conflictedFiles: stacked.conflictedFiles };
    const tree = this.treeId(stacked.tip);
    if (input.expectedTree !== undefined && tree !== input.expectedTree) {
      return { ok: false, reason: 'tree_mismatch', expectedTree: input.expectedTree, actualTree: tree };
    }
    this.keep(stacked.made);
    this.branches.set(input.targetBranch, stacked.tip.sha);
    const mergedShas: Record<number, string> = {};
    input.pullRequests.forEach((pr, i) => {
      mergedShas[pr.number] = stacked.made[i]!.sha;
      const pull = this.pulls.get(pr.number);
      if (pull) Object.assign(pull.info, { state: 'closed', merged: true });
    });
    this.merges.push({ prNumbers: input.pullRequests.map((p) => p.number), newHeadSha: stacked.tip.sha });
    return { ok: true, newHeadSha: stacked.tip.sha, mergedShas };
  }

  deleteBranch(branch: string, expectedSha?: string): DeleteBranchResult {
    const at = this.branches.get(branch);
    if (at === undefined) return 'not_found';
    if (expectedSha !== undefined && at !== expectedSha) return 'moved';
    this.branches.delete(branch);
    return 'deleted';
  }

  // ----- commits -----

  private commitAt(ref: string): Commit {
    const commit = this.commits.get(this.branches.get(ref) ?? ref);
    if (!commit) throw new Error(`${ref} is neither a branch nor a commit of ${repoKey(this.ref)}`);
    return commit;
  }

  /** A commit object, not yet reachable from the repository's indexes unless kept. */
  private draft(parent: Commit | null, changes: Map<string, string | null>, sha?: string): Commit {
    let tree = parent?.tree ?? 0n;
    for (const [path, content] of changes) {
      const before = parent ? this.read(parent, path) : null;
      if (before !== null) tree ^= fileDigest(path, before);
      if (content !== null) tree ^= fileDigest(path, content);
    }
    const id =
      sha ??
      createHash('sha1')
        .update(`${repoKey(this.ref)}\0${++this.counter}`)
        .digest('hex');
    if (this.commits.has(id)) throw new Error(`commit ${id} exists`);
    const jumps: Commit[] = [];
    const commit: Commit = { sha: id, parent, depth: parent ? parent.depth + 1 : 0, jumps, changes, tree: tree & MASK };
    if (parent) {
      jumps.push(parent);
      for (let k = 1; jumps[k - 1]!.jumps[k - 1]; k++) jumps.push(jumps[k - 1]!.jumps[k - 1]!);
    }
    return commit;
  }

  private keep(commits: readonly Commit[]): void {
    for (const c of commits) {
      this.commits.set(c.sha, c);
      for (const path of c.changes.keys()) {
        const list = this.writers.get(path);
        if (list) list.push(c);
        else this.writers.set(path, [c]);
      }
    }
  }

  private commit(parent: Commit | null, changes: Map<string, string | null>, sha?: string): Commit {
    const c = this.draft(parent, changes, sha);
    this.keep([c]);
    return c;
  }

  private treeId(c: Commit): string {
    return c.tree.toString(16).padStart(16, '0');
  }

  private ancestorAt(c: Commit, depth: number): Commit | null {
    if (depth > c.depth) return null;
    let node = c;
    for (let diff = c.depth - depth, k = 0; diff > 0; diff >>= 1, k++) if (diff & 1) node = node.jumps[k]!;
    return node;
  }

  private mergeBase(a: Commit, b: Commit): Commit | null {
    let x = this.ancestorAt(a, Math.min(a.depth, b.depth))!;
    let y = this.ancestorAt(b, Math.min(a.depth, b.depth))!;
    if (x === y) return x;
    for (let k = x.jumps.length - 1; k >= 0; k--) {
      const [up, other] = [x.jumps[k], y.jumps[k]];
      if (up && other && up !== other) [x, y] = [up, other];
    }
    return x.parent && x.parent === y.parent ? x.parent : null;
  }

  /** The file at a commit: what the nearest ancestor (or the commit itself) that wrote it wrote. */
  private read(c: Commit, path: string): string | null {
    let found: Commit | null = null;
    for (const w of this.writers.get(path) ?? []) {
      if (w.depth <= c.depth && (found === null || w.depth > found.depth) && this.ancestorAt(c, w.depth) === w) found = w;
    }
    // A commit not yet kept (a draft on a test branch being stacked) is read along its parents.
    for (let d: Commit | null = c; d && !this.commits.has(d.sha); d = d.parent) {
      if (d.changes.has(path)) return d.changes.get(path) ?? null;
    }
    return found ? (found.changes.get(path) ?? null) : null;
  }

  /** The paths the commits from `tip` back to (not including) `base` wrote; every ancestor's without a base. */
  private writtenSince(tip: Commit, base: Commit | null): Set<string> {
    const paths = new Set<string>();
    for (let c: Commit | null = tip; c && c !== base; c = c.parent) for (const path of c.changes.keys()) paths.add(path);
    return paths;
  }

  /** What merging `head` onto `tip` changes, file by file against their merge base. */
  private apply(tip: Commit, head: Commit): Applied {
    const base = this.mergeBase(tip, head);
    const paths = this.writtenSince(head, base);
    const changes = new Map<string, string | null>();
    const conflictedFiles: string[] = [];
    for (const path of [...paths].sort()) {
      const theirs = this.read(head, path);
      const original = base ? this.read(base, path) : null;
      const ours = this.read(tip, path);
      if (theirs === original || theirs === ours) continue;
      if (ours === original) {
        changes.set(path, theirs);
        continue;
      }
      const merged = ours !== null && original !== null && theirs !== null ? mergeLines(ours, original, theirs) : null;
      if (merged === null) conflictedFiles.push(path);
      else changes.set(path, merged);
    }
    return conflictedFiles.length > 0 ? { ok: false, conflictedFiles } : { ok: true, changes };
  }

  /** The pull requests merged one by one onto `base`, as drafts: nothing is kept until the caller keeps them. */
  private stack(
    base: Commit,
    pulls: readonly Pick<TestBranchPullRequest, 'number' | 'headSha'>[],
  ): { ok: true; tip: Commit; made: Commit[] } | { ok: false; prNumber: number; conflictedFiles: string[] } {
    let tip = base;
    const made: Commit[] = [];
    for (const pr of pulls) {
      const applied = this.apply(tip, this.commitAt(pr.headSha));
      if (!applied.ok) return { ok: false, prNumber: pr.number, conflictedFiles: applied.conflictedFiles };
      tip = this.draft(tip, applied.changes);
      made.push(tip);
    }
    return { ok: true, tip, made };
  }
}

/**
 * The forge: repositories by name, behind the provider interface the engine uses. Every write is
 * logged in order, so tests assert what happened rather than how.
 */
export class InMemoryForge implements GitProvider {
  readonly kind = 'in-memory';
  private readonly repositories = new Map<string, MemoryRepository>();
  readonly writes: string[] = [];

  constructor(private readonly observeMerge: MergeObserver = () => undefined) {}

  createRepository(ref: RepoRef, files: Readonly<Record<string, string>> = { 'README.md': 'hello\n' }, options: { branch?: string; initialSha?: string } = {}) {
    if (this.repositories.has(repoKey(ref))) throw new Error(`repository ${repoKey(ref)} exists`);
    const repo = new MemoryRepository(ref, files, options.branch ?? 'main', options.initialSha);
    this.repositories.set(repoKey(ref), repo);
    return repo;
  }

  repository(ref: RepoRef): MemoryRepository {
    const repo = this.repositories.get(repoKey(ref));
    if (!repo) throw new Error(`no repository ${repoKey(ref)}`);
    return repo;
  }

  async repositoryExists(ref: RepoRef): Promise<boolean> {
    return this.repositories.has(repoKey(ref));
  }

  async branchHead(ref: RepoRef, branch: string): Promise<string | null> {
    return this.repository(ref).head(branch);
  }

  async getPullRequest(ref: RepoRef, number: number): Promise<PullRequestInfo | null> {
    return this.repository(ref).pullRequest(number);
  }

  async getPullRequests(ref: RepoRef, numbers: readonly number[]): Promise<Map<number, PullRequestInfo | null>> {
    const repo = this.repository(ref);
    return new Map(numbers.map((n) => [n, repo.pullRequest(n)]));
  }

  async listOpenPullRequests(ref: RepoRef): Promise<PullRequestInfo[]> {
    return this.repository(ref).openPullRequests();
  }

  async mergeability(ref: RepoRef, shas: { baseSha: string; headSha: string }): Promise<ProviderMergeability> {
    return this.repository(ref).mergeability(shas.baseSha, shas.headSha);
  }

  async changedPaths(ref: RepoRef, shas: { baseSha: string; headSha: string }, limit: number): Promise<string[] | null> {
    const paths = this.repository(ref).changedPaths(shas.baseSha, shas.headSha);
    return paths === null || paths.length > limit ? null : paths;
  }

  async isAncestor(ref: RepoRef, ancestorSha: string, descendantSha: string): Promise<boolean> {
    return this.repository(ref).isAncestor(ancestorSha, descendantSha);
  }

  async readFile(ref: RepoRef, sha: string, path: string): Promise<string | null> {
    return this.repository(ref).fileAt(sha, path);
  }

  async branchProtectionRequiredStatuses(ref: RepoRef): Promise<string[] | null> {
    this.repository(ref);
    return null;
  }

  async buildTestBranch(ref: RepoRef, input: BuildTestBranchInput): Promise<BuildTestBranchResult> {
    const result = this.repository(ref).buildTestBranch(input);
    if (result.ok) this.writes.push(`build ${input.branch}`);
    return result;
  }

  async mergePullRequests(ref: RepoRef, input: MergePullRequestsInput): Promise<MergePullRequestsResult> {
    const repo = this.repository(ref);
    const result = repo.mergePullRequests(input);
    if (result.ok) this.writes.push(`merge ${input.pullRequests.map((p) => `#${p.number}`).join(' ')}`);
    this.observeMerge(repo, input, result);
    return result;
  }

  async deleteBranch(ref: RepoRef, branch: string, expectedSha?: string): Promise<DeleteBranchResult> {
    const result = this.repository(ref).deleteBranch(branch, expectedSha);
    if (result === 'deleted') this.writes.push(`delete ${branch}`);
    return result;
  }

  registry(): ProviderRegistry {
    return { providerFor: async (ref) => (this.repositories.has(repoKey(ref)) ? this : null) };
  }
}
