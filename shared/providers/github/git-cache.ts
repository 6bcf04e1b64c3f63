// A bare cache clone per GitHub repository under DATA_DIR, laid out as the local provider's
// repositories (`<root>/<host>/<owner>/<name>.git`) so that the local plumbing builds test
// branches and merges in it. Objects are fetched on demand (by sha: GitHub serves any reachable
// commit, refs/pull/N/head included, so fork pull requests need nothing special) and results are
// pushed with compare-and-swap leases. The token travels in an environment variable (never on
// a command line or in the clone's config) as the password of `x-access-token`.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { RepoRef } from '../../platform/repo-ref.js';
import { GitRepository } from '../local/git-repository.js';
import { GitCommandError, runGit, type GitIdentity } from '../local/git-runner.js';
import { conventionalRepositoryPath, isBareRepository } from '../local/repo-path.js';

/** A push that moves one ref from an expected value (null: must not exist) to a new one (null: delete). */
export interface RefLease {
  ref: string;
  expected: string | null;
  next: string | null;
}

const NETWORK_TIMEOUT_MS = 300_000;

export class GitCache {
  constructor(
    /** Root of the cache clones (DATA_DIR/github-cache). */
    readonly root: string,
    /** GITHUB_GIT_URL. */
    private readonly gitUrl: string,
    private readonly committer: GitIdentity,
  ) {}

  remoteUrl(repo: RepoRef): string {
    return `${this.gitUrl}/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.name)}.git`;
  }

  /** The cache clone of a repository, created empty on first use. */
  async open(repo: RepoRef): Promise<GitRepository> {
    const dir = conventionalRepositoryPath(this.root, repo);
    if (!(await isBareRepository(dir))) {
      await mkdir(path.dirname(dir), { recursive: true });
      await runGit(['init', '--quiet', '--bare', dir]);
    }
    return new GitRepository(dir, this.committer);
  }

  private auth(token: string): Record<string, string> {
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    return { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` };
  }

  /** Makes sure the commits are in the clone, fetching the missing ones by sha. */
  async ensureCommits(git: GitRepository, repo: RepoRef, token: string, shas: readonly string[]): Promise<void> {
    const unique = [...new Set(shas)];
    const found = await git.describeObjects(unique.map((s) => `${s}^{commit}`));
    const missing = unique.filter((_s, i) => !found[i]);
    if (missing.length === 0) return;
    await git.run(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', this.remoteUrl(repo), ...missing], {
      env: this.auth(token),
      timeoutMs: NETWORK_TIMEOUT_MS,
    });
  }

  /** Fetches a branch of the remote into the same branch of the clone (forced: the remote is the truth); null when absent. */
  async fetchBranch(git: GitRepository, repo: RepoRef, token: string, branch: string): Promise<string | null> {
    const head = await this.remoteRef(git, repo, token, `refs/heads/${branch}`);
    if (head === null) return null;
    await this.ensureCommits(git, repo, token, [head]);
    await git.updateRefs([{ ref: `refs/heads/${branch}`, newSha: head }], 'openmq: fetched from GitHub');
    return head;
  }

  /** Where a ref points on the remote now (git ls-remote), or null. */
  async remoteRef(git: GitRepository, repo: RepoRef, token: string, ref: string): Promise<string | null> {
    const { stdout } = await git.run(['ls-remote', this.remoteUrl(repo), ref], { env: this.auth(token), timeoutMs: NETWORK_TIMEOUT_MS });
    for (const line of stdout.toString('utf8').split('\n')) {
      const [sha, name] = line.split('\t');
      if (name === ref && sha) return sha;
    }
    return null;
  }

  /**
   * Pushes ref moves atomically, each leased on its expected value. Returns true when the remote
   * took them, false when a lease failed (somebody else moved a ref). A failure of the transport
   * (timeout, 5xx) is resolved by looking at the remote: the push may have landed.
   */
  async push(git: GitRepository, repo: RepoRef, token: string, leases: readonly RefLease[]): Promise<boolean> {
    const args = ['push', '--quiet', '--atomic', '--porcelain'];
    for (const l of leases) args.push(`--force-with-lease=${l.ref}:${l.expected ?? ''}`);
    args.push(this.remoteUrl(repo), ...leases.map((l) => (l.next === null ? `:${l.ref}` : `${l.next}:${l.ref}`)));
    try {
      await git.run(args, { env: this.auth(token), timeoutMs: NETWORK_TIMEOUT_MS });
      return true;
    } catch (err) {
      if (!(err instanceof GitCommandError)) throw err;
      const now = await Promise.all(leases.map((l) => this.remoteRef(git, repo, token, l.ref)));
      if (leases.every((l, i) => now[i] === l.next)) return true;
      if (leases.some((l, i) => now[i] !== l.expected)) return false;
      throw err;
    }
  }
}
