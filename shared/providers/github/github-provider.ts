// The GitHub forge: pull requests, branches, files and protection read with the REST API;
// test branches and merge results computed with git in a cache clone (the local provider's
// plumbing, so both forges merge alike) and pushed with compare-and-swap leases.
//
// Merging (docs/github.md): the result is always computed in the cache clone first, so a
// conflict or a tree that differs from the tested one writes nothing.
// - merge_commit: the computed merge commits are pushed to the target with a lease on the
//   expected head: the target holds exactly the computed (tested) tree, and GitHub marks each
//   pull request merged because its head became reachable from the base.
// - squash, rebase: GitHub's own merge (PUT /pulls/N/merge), one pull request at a time, only
//   after reading that the target is still where the previous step left it, guarded by the
//   tested head sha; then the new target head is fetched and verified (tree equal to the
//   computed one, previous head its first parent (squash) or ancestor (rebase)). A verification
//   that fails means someone pushed between the check and GitHub's merge: it is logged as an
//   error and reported as `target_moved`, so the queue re-tests everything on the real target.
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import type { MergeMethod } from '../../merge-queue/domain/model.js';
import type { GitHubConfig } from './github-config.js';
import type { Logger } from '../../platform/logging.js';
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
import { KeyedSerializer } from '../keyed-serializer.js';
import { BranchExistsError, DEFAULT_COMMITTER, LocalGitProvider } from '../local/local-git-provider.js';
import { branchName, branchRef, objectId, pullNumber, treePath } from '../local/git-names.js';
import type { GitRepository } from '../local/git-repository.js';
import { GitCache } from './git-cache.js';
import { servedByGitHub, type GitHubClients, messageOf, statusOf, type RepositoryAccess } from './github-client.js';

export interface GitHubProviderOptions {
  config: GitHubConfig;
  /** The App's (or token's) API clients, shared with GitHubApi. */
  clients: GitHubClients;
  /** DATA_DIR: the cache clones live in `<dataDir>/github-cache`. */
  dataDir: string;
  logger: Logger;
}

/** Tries of GitHub's merge after a 5xx or a timeout, each preceded by a look at whether it landed. */
const MERGE_ATTEMPTS = 3;
const MERGE_TIMEOUT_MS = 60_000;
const MERGE_BACKOFF_MS = 1_000;
const READ_CONCURRENCY = 8;
const EXISTS_CACHE_MS = 60_000;
/** Files read at a commit (`.trunk/trunk.yaml` at the target head, read by every planning pass). */
const FILES_KEPT = 1_000;

interface GitHubPull {
  number: number;
  title: string;
  user: { login: string } | null;
  base: { ref: string; repo: { full_name: string } };
  head: { sha: string; ref: string; repo: { full_name: string } | null };
  state: string;
  merged_at: string | null;
  draft?: boolean;
  labels?: { name?: string }[];
  html_url: string;
}

type MergeStep = { kind: 'merged'; sha: string } | { kind: 'moved' } | { kind: 'refused'; message: string };

const GITHUB_METHOD: Record<Exclude<MergeMethod, 'merge_commit'>, 'squash' | 'rebase'> = { squash: 'squash', rebase: 'rebase' };

export class GitHubProvider implements GitProvider {
  readonly kind = 'github';
  private readonly clients: GitHubClients;
  private readonly cache: GitCache;
  /** The local plumbing over the cache clones. */
  private readonly plumbing: LocalGitProvider;
  private readonly writes = new KeyedSerializer();
  private readonly logger: Logger;
  /** Repositories known to exist, until when (epoch ms). */
  private readonly seen = new Map<string, number>();
  /** A file at a commit never changes: each is asked of GitHub once (absent ones too). */
  private readonly filesAtCommits = new LRUCache<string, { text: string | null }>({ max: FILES_KEPT });

  constructor(private readonly opts: GitHubProviderOptions) {
    this.logger = opts.logger;
    this.clients = opts.clients;
    const root = path.join(opts.dataDir, 'github-cache');
    this.cache = new GitCache(root, opts.config.gitUrl, DEFAULT_COMMITTER);
    this.plumbing = new LocalGitProvider({ root });
  }

  /** Whether GitHub serves this repository at all (its host is GITHUB_HOST). */
  serves(repo: RepoRef): boolean {
    return servedByGitHub(this.opts.config, repo);
  }

  private access(repo: RepoRef): Promise<RepositoryAccess> {
    return this.clients.requireRepo(repo);
  }

  private write<T>(repo: RepoRef, task: () => Promise<T>): Promise<T> {
    return this.writes.run(`${repo.owner}/${repo.name}`.toLowerCase(), task);
  }

  async repositoryExists(repo: RepoRef): Promise<boolean> {
    if (!this.serves(repo)) return false;
    // Every use case asks the registry first: a repository seen a moment ago is not asked about again.
    const key = `${repo.owner}/${repo.name}`.toLowerCase();
    if ((this.seen.get(key) ?? 0) > Date.now()) return true;
    const access = await this.clients.forRepo(repo);
    if (!access) return false;
    try {
      await access.octokit.rest.repos.get({ owner: repo.owner, repo: repo.name });
      this.seen.set(key, Date.now() + EXISTS_CACHE_MS);
      return true;
    } catch (err) {
      if (statusOf(err) === 404) return false;
      throw err;
    }
  }

  async branchHead(repo: RepoRef, branch: string): Promise<string | null> {
    branchName(branch);
    const { octokit } = await this.access(repo);
    try {
      const { data } = await octokit.rest.git.getRef({ owner: repo.owner, repo: repo.name, ref: `heads/${branch}` });
      // getRef answers the ref itself, or 404; a different ref name would be a prefix match of the older API.
      return data.ref === `refs/heads/${branch}` ? data.object.sha : null;
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw err;
    }
  }

  private describe(pull: GitHubPull): PullRequestInfo {
    return {
      number: pull.number,
      title: pull.title,
      author: pull.user?.login ?? 'ghost',
      baseBranch: pull.base.ref,
      headSha: pull.head.sha,
      headBranch: pull.head.ref,
      state: pull.state === 'open' ? 'open' : 'closed',
      merged: pull.merged_at !== null,
      draft: pull.draft ?? false,
      // A head repository deleted by its owner reads as null: it came from a fork too.
      fromFork: pull.head.repo?.full_name.toLowerCase() !== pull.base.repo.full_name.toLowerCase(),
      labels: (pull.labels ?? []).flatMap((l) => (typeof l.name === 'string' ? [l.name] : [])),
      url: pull.html_url,
    };
  }

  async getPullRequest(repo: RepoRef, number: number): Promise<PullRequestInfo | null> {
    const n = pullNumber(number);
    const { octokit } = await this.access(repo);
    try {
      const { data } = await octokit.rest.pulls.get({ owner: repo.owner, repo: repo.name, pull_number: n });
      return this.describe(data);
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw err;
    }
  }

  async getPullRequests(repo: RepoRef, numbers: readonly number[]): Promise<Map<number, PullRequestInfo | null>> {
    const result = new Map<number, PullRequestInfo | null>();
    // A few at a time: the throttling plugin queues the rest anyway, this keeps memory flat.
    for (let i = 0; i < numbers.length; i += READ_CONCURRENCY) {
      const slice = numbers.slice(i, i + READ_CONCURRENCY);
      const pulls = await Promise.all(slice.map((n) => this.getPullRequest(repo, n)));
      slice.forEach((n, j) => result.set(n, pulls[j] ?? null));
    }
    return result;
  }

  async listOpenPullRequests(repo: RepoRef): Promise<PullRequestInfo[]> {
    const { octokit } = await this.access(repo);
    const pulls = await octokit.paginate(octokit.rest.pulls.list, { owner: repo.owner, repo: repo.name, state: 'open', per_page: 100 });
    return pulls.map((p) => this.describe(p)).sort((a, b) => a.number - b.number);
  }

  /**
   * Computed with git in the cache clone, not read from GitHub's `mergeable`: that field is null
   * while GitHub computes it and only ever relative to the current base, while the queue asks
   * about a given base commit.
   */
  async mergeability(repo: RepoRef, shas: { baseSha: string; headSha: string }): Promise<ProviderMergeability> {
    const base = objectId(shas.baseSha, 'baseSha');
    const head = objectId(shas.headSha, 'headSha');
    const { git, token } = await this.clone(repo);
    await this.cache.ensureCommits(git, repo, token, [base, head]);
    return this.plumbing.mergeability(repo, { baseSha: base, headSha: head });
  }

  async changedPaths(repo: RepoRef, shas: { baseSha: string; headSha: string }, limit: number): Promise<string[] | null> {
    const base = objectId(shas.baseSha, 'baseSha');
    const head = objectId(shas.headSha, 'headSha');
    const { git, token } = await this.clone(repo);
    await this.cache.ensureCommits(git, repo, token, [base, head]);
    return this.plumbing.changedPaths(repo, { baseSha: base, headSha: head }, limit);
  }

  async isAncestor(repo: RepoRef, ancestorSha: string, descendantSha: string): Promise<boolean> {
    const ancestor = objectId(ancestorSha, 'ancestorSha');
    const descendant = objectId(descendantSha, 'descendantSha');
    const { git, token } = await this.clone(repo);
    await this.cache.ensureCommits(git, repo, token, [ancestor, descendant]);
    return git.isAncestor(ancestor, descendant);
  }

  async readFile(repo: RepoRef, sha: string, file: string): Promise<string | null> {
    const commit = objectId(sha);
    const filePath = treePath(file);
    // Owner and name are case-insensitive on GitHub; paths are not.
    const key = `${`${repo.owner}/${repo.name}`.toLowerCase()}@${commit}:${filePath}`;
    const kept = this.filesAtCommits.get(key);
    if (kept) return kept.text;
    const text = await this.fetchFile(repo, commit, filePath);
    this.filesAtCommits.set(key, { text });
    return text;
  }

  private async fetchFile(repo: RepoRef, commit: string, filePath: string): Promise<string | null> {
    const { octokit } = await this.access(repo);
    try {
      const { data } = await octokit.rest.repos.getContent({ owner: repo.owner, repo: repo.name, path: filePath, ref: commit });
      if (Array.isArray(data) || data.type !== 'file' || !('content' in data)) return null;
      return Buffer.from(data.content, 'base64').toString('utf8');
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw err;
    }
  }

  /** Required checks of the branch's rulesets (GET rules/branches) and classic protection; null when neither requires any. */
  async branchProtectionRequiredStatuses(repo: RepoRef, branch: string): Promise<string[] | null> {
    branchName(branch);
    const { octokit } = await this.access(repo);
    const contexts = new Set<string>();
    const rules = await octokit.paginate(octokit.rest.repos.getBranchRules, { owner: repo.owner, repo: repo.name, branch, per_page: 100 });
    for (const rule of rules) {
      if (rule.type !== 'required_status_checks') continue;
      for (const check of rule.parameters?.required_status_checks ?? []) contexts.add(check.context);
    }
    try {
      const { data } = await octokit.rest.repos.getStatusChecksProtection({ owner: repo.owner, repo: repo.name, branch });
      for (const check of data.checks ?? []) contexts.add(check.context);
      for (const context of data.contexts ?? []) contexts.add(context);
    } catch (err) {
      // 404: no classic protection; 403: the installation may not read it (administration:read is optional).
      const status = statusOf(err);
      if (status !== 404 && status !== 403) throw err;
    }
    return contexts.size > 0 ? [...contexts].sort() : null;
  }

  private async clone(repo: RepoRef): Promise<{ git: GitRepository; token: string }> {
    const access = await this.access(repo);
    const [git, token] = await Promise.all([this.cache.open(repo), access.gitToken()]);
    return { git, token };
  }

  async buildTestBranch(repo: RepoRef, input: BuildTestBranchInput): Promise<BuildTestBranchResult> {
    const ref = branchRef(input.branch);
    return this.write(repo, async () => {
      const { git, token } = await this.clone(repo);
      await this.cache.ensureCommits(git, repo, token, [input.baseSha, ...input.pullRequests.map((p) => p.headSha)]);
      const built = await this.plumbing.buildTestBranch(repo, input);
      if (!built.ok) return built;
      if (await this.cache.push(git, repo, token, [{ ref, expected: null, next: built.sha }])) return built;
      // A retried build finds its own push: the same commit is already there.
      if ((await this.cache.remoteRef(git, repo, token, ref)) === built.sha) return built;
      throw new BranchExistsError(input.branch);
    });
  }

  async mergePullRequests(repo: RepoRef, input: MergePullRequestsInput): Promise<MergePullRequestsResult> {
    const target = branchRef(input.targetBranch);
    return this.write(repo, async () => {
      const { git, token } = await this.clone(repo);
      const current = await this.cache.fetchBranch(git, repo, token, input.targetBranch);
      if (current !== input.expectedHeadSha) return { ok: false, reason: 'target_moved', actualHeadSha: current };
      await this.cache.ensureCommits(
        git,
        repo,
        token,
        input.pullRequests.map((p) => p.headSha),
      );
      // The whole result, computed (and checked against the tested tree) before anything is written.
      const computed = await this.plumbing.mergePullRequests(repo, input);
      if (!computed.ok) return computed;
      // Stack members ask to be merged into the member below: GitHub merges (and marks merged
      // after a push) into a pull request's own base, so each goes onto the target first.
      await this.retargetOnto(repo, input);
      if (input.method === 'merge_commit') {
        if (await this.cache.push(git, repo, token, [{ ref: target, expected: input.expectedHeadSha, next: computed.newHeadSha }])) return computed;
        return { ok: false, reason: 'target_moved', actualHeadSha: await this.cache.remoteRef(git, repo, token, target) };
      }
      return this.mergeWithGitHub(repo, git, token, input, computed.mergedShas);
    });
  }

  /** squash and rebase: GitHub's merge, pull request by pull request, each step verified against the computed one. */
  private async mergeWithGitHub(
    repo: RepoRef,
    git: GitRepository,
    token: string,
    input: MergePullRequestsInput,
    computed: Record<number, string>,
  ): Promise<MergePullRequestsResult> {
    const method = input.method as Exclude<MergeMethod, 'merge_commit'>;
    let head = input.expectedHeadSha;
    const mergedShas: Record<number, string> = {};
    for (const pr of input.pullRequests) {
      const now = await this.branchHead(repo, input.targetBranch);
      if (now !== head) return { ok: false, reason: 'target_moved', actualHeadSha: now };
      const merged = await this.mergeOne(repo, method, pr, input.targetBranch, head);
      if (merged.kind === 'moved') return { ok: false, reason: 'target_moved', actualHeadSha: await this.branchHead(repo, input.targetBranch) };
      if (merged.kind === 'refused') return { ok: false, reason: 'conflict', prNumber: pr.number, conflictedFiles: [], forgeMessage: merged.message };
      const mergedSha = merged.sha;
      await this.cache.ensureCommits(git, repo, token, [mergedSha]);
      const expected = computed[pr.number] as string;
      const verified =
        (await git.treeOf(mergedSha)) === (await git.treeOf(expected)) &&
        (method === 'squash' ? (await git.rawCommit(mergedSha)).parents[0] === head : await git.isAncestor(head, mergedSha));
      if (!verified) {
        this.logger.error(
          { repo, prNumber: pr.number, mergedSha, expected },
          'GitHub merged something else than the tested result (the target moved during the merge)',
        );
        return { ok: false, reason: 'target_moved', actualHeadSha: mergedSha };
      }
      mergedShas[pr.number] = mergedSha;
      head = mergedSha;
    }
    return { ok: true, newHeadSha: head, mergedShas };
  }

  /**
   * PUT /pulls/N/merge without the automatic retry: a 5xx or a timeout may hide a merge that
   * happened, so before trying again the pull request is read, and a merged one is taken as done.
   * `moved`: the pull request's head or the target moved; `refused`: GitHub said no (its words).
   */
  private async retargetOnto(repo: RepoRef, input: MergePullRequestsInput): Promise<void> {
    const stacked = input.pullRequests.filter((p) => p.baseBranch && p.baseBranch !== input.targetBranch);
    if (stacked.length === 0) return;
    const { octokit } = await this.access(repo);
    for (const pr of stacked) {
      await octokit.rest.pulls.update({ owner: repo.owner, repo: repo.name, pull_number: pr.number, base: input.targetBranch });
      this.logger.info(
        { repo, prNumber: pr.number, from: pr.baseBranch, to: input.targetBranch },
        'stack member retargeted onto the target branch before its merge',
      );
    }
  }

  private async mergeOne(repo: RepoRef, method: 'squash' | 'rebase', pr: MergePullRequest, targetBranch: string, head: string): Promise<MergeStep> {
    const { octokit } = await this.access(repo);
    for (let attempt = 1; ; attempt++) {
      try {
        const { data } = await octokit.rest.pulls.merge({
          owner: repo.owner,
          repo: repo.name,
          pull_number: pr.number,
          sha: pr.headSha,
          merge_method: GITHUB_METHOD[method],
          ...(method === 'squash' ? { commit_title: `${pr.title.replace(/\s+/g, ' ').trim()} (#${pr.number})` } : {}),
          request: { retries: 0, signal: AbortSignal.timeout(MERGE_TIMEOUT_MS) },
        });
        return { kind: 'merged', sha: data.sha };
      } catch (err) {
        const status = statusOf(err);
        // 409: the pull request's head is not the tested one any more; the sync cancels the entry.
        if (status === 409) return { kind: 'moved' };
        if (status !== null && status < 500) return { kind: 'refused', message: `GitHub refused to merge #${pr.number} (${status}): ${messageOf(err)}` };
        this.logger.warn({ prNumber: pr.number, attempt, err: messageOf(err) }, 'GitHub merge failed; checking whether it landed');
        const { data: landed } = await octokit.rest.pulls.get({ owner: repo.owner, repo: repo.name, pull_number: pr.number });
        if (landed.merged && landed.merge_commit_sha) return { kind: 'merged', sha: landed.merge_commit_sha };
        if ((await this.branchHead(repo, targetBranch)) !== head) return { kind: 'moved' };
        if (attempt >= MERGE_ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, MERGE_BACKOFF_MS * 2 ** (attempt - 1)));
      }
    }
  }

  async deleteBranch(repo: RepoRef, branch: string, expectedSha?: string): Promise<DeleteBranchResult> {
    const ref = branchRef(branch);
    const expected = expectedSha === undefined ? undefined : objectId(expectedSha, 'expectedSha');
    return this.write(repo, async () => {
      const { git, token } = await this.clone(repo);
      const current = await this.cache.remoteRef(git, repo, token, ref);
      if (current === null) return 'not_found';
      if (expected !== undefined && current !== expected) return 'moved';
      if (!(await this.cache.push(git, repo, token, [{ ref, expected: current, next: null }]))) {
        return (await this.cache.remoteRef(git, repo, token, ref)) === null ? 'not_found' : 'moved';
      }
      // The cache's copy goes too, so the clone does not keep every test branch ever built.
      await git.run(['update-ref', '-d', ref]);
      return 'deleted';
    });
  }
}
