// GitHub's REST API beyond what a forge provider does: the CI results on a commit, the queue's
// own commit status, draft pull requests for test branches, comments, permissions and reactions.
// The GitHub integration (shared/github/) uses it; the merge queue sees GitHub only through
// GitHubProvider.
import type { RepoRef } from '../../platform/repo-ref.js';
import { isRepositoryRole, type RepositoryRole } from '../../platform/accounts/actor.js';
import { KeyedSerializer } from '../keyed-serializer.js';
import { branchName, objectId, pullNumber } from '../local/git-names.js';
import { servedByGitHub, statusOf, type GitHubClients, type RepositoryAccess } from './github-client.js';
import type { GitHubConfig } from './github-config.js';
import { checkRunState, isStatusState, type CommitCheck } from './commit-checks.js';

/** GitHub's legacy base roles, in the collaborator permission call's `permission`. */
const LEGACY_PERMISSIONS: readonly RepositoryRole[] = ['admin', 'write', 'read', 'none'];
/** A GitHub user name: letters, digits and inner hyphens, at most 39 characters. */
const GITHUB_LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;

export class GitHubApi {
  /** Pull requests opened and closed one at a time per repository (a test branch never gets two). */
  private readonly writes = new KeyedSerializer();

  constructor(
    private readonly config: Pick<GitHubConfig, 'host'>,
    readonly clients: GitHubClients,
  ) {}

  /** Whether GitHub serves this repository at all (its host is GITHUB_HOST). */
  serves(repo: RepoRef): boolean {
    return servedByGitHub(this.config, repo);
  }

  private access(repo: RepoRef): Promise<RepositoryAccess> {
    return this.clients.requireRepo(repo);
  }

  private write<T>(repo: RepoRef, task: () => Promise<T>): Promise<T> {
    return this.writes.run(`${repo.owner}/${repo.name}`.toLowerCase(), task);
  }

  /** The latest commit status per context and the latest check run per name on a commit. */
  async commitChecks(repo: RepoRef, sha: string): Promise<CommitCheck[]> {
    const ref = objectId(sha);
    const { octokit } = await this.access(repo);
    const params = { owner: repo.owner, repo: repo.name, ref, per_page: 100 };
    const [combined, runs] = await Promise.all([
      octokit.rest.repos.getCombinedStatusForRef(params),
      octokit.paginate(octokit.rest.checks.listForRef, { ...params, filter: 'latest' }),
    ]);
    const checks: CommitCheck[] = [];
    for (const s of combined.data.statuses) {
      if (isStatusState(s.state)) checks.push({ context: s.context, state: s.state, targetUrl: s.target_url, description: s.description });
    }
    for (const r of runs) {
      const checkRun = {
        checkRunId: r.id,
        suiteId: r.check_suite?.id ?? null,
        url: r.html_url ?? r.details_url ?? '',
        status: r.status,
        conclusion: r.conclusion,
      };
      checks.push({ context: r.name, state: checkRunState(r.status, r.conclusion), targetUrl: r.details_url ?? r.html_url, checkRun });
    }
    return checks;
  }

  /** Posts a commit status (the queue's own status on a pull request head). */
  async postCommitStatus(
    repo: RepoRef,
    sha: string,
    status: { context: string; state: 'pending' | 'success' | 'failure' | 'error'; description: string; targetUrl?: string },
  ): Promise<void> {
    const { octokit } = await this.access(repo);
    await octokit.rest.repos.createCommitStatus({
      owner: repo.owner,
      repo: repo.name,
      sha: objectId(sha),
      context: status.context,
      state: status.state,
      // GitHub refuses descriptions over 140 characters.
      description: status.description.length > 140 ? `${status.description.slice(0, 139)}…` : status.description,
      ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
    });
  }

  /**
   * createPrsForTestingBranches: opens a draft pull request from a test branch into the target,
   * or answers the one already open from that branch (a retried job, or a job that died after
   * GitHub created it), so a test branch never gets two. Returns its number.
   */
  async openDraftPullRequest(repo: RepoRef, pr: { head: string; base: string; title: string; body: string }): Promise<number> {
    branchName(pr.head);
    branchName(pr.base);
    return this.write(repo, async () => {
      const existing = await this.openPullRequestFrom(repo, pr.head);
      if (existing !== null) return existing;
      const { octokit } = await this.access(repo);
      try {
        const { data } = await octokit.rest.pulls.create({
          owner: repo.owner,
          repo: repo.name,
          head: pr.head,
          base: pr.base,
          title: pr.title,
          body: pr.body,
          draft: true,
        });
        return data.number;
      } catch (err) {
        // 422 "A pull request already exists": an earlier try's request landed after all.
        const landed = statusOf(err) === 422 ? await this.openPullRequestFrom(repo, pr.head) : null;
        if (landed === null) throw err;
        return landed;
      }
    });
  }

  /** The open pull request whose head is this branch of the repository itself, or null. */
  async openPullRequestFrom(repo: RepoRef, branch: string): Promise<number | null> {
    const { octokit } = await this.access(repo);
    const { data } = await octokit.rest.pulls.list({ owner: repo.owner, repo: repo.name, state: 'open', head: `${repo.owner}:${branch}`, per_page: 1 });
    return data[0]?.number ?? null;
  }

  /** Closes a pull request (closing a closed or deleted one is not an error). */
  async closePullRequest(repo: RepoRef, number: number): Promise<void> {
    const n = pullNumber(number);
    return this.write(repo, async () => {
      const { octokit } = await this.access(repo);
      try {
        await octokit.rest.pulls.update({ owner: repo.owner, repo: repo.name, pull_number: n, state: 'closed' });
      } catch (err) {
        if (statusOf(err) !== 404) throw err;
      }
    });
  }

  /** Creates the comment on a pull request, or edits it in place; returns its id (a deleted comment is created again). */
  async upsertComment(repo: RepoRef, prNumber: number, commentId: number | null, body: string): Promise<number> {
    const { octokit } = await this.access(repo);
    if (commentId !== null) {
      try {
        await octokit.rest.issues.updateComment({ owner: repo.owner, repo: repo.name, comment_id: commentId, body });
        return commentId;
      } catch (err) {
        if (statusOf(err) !== 404) throw err;
      }
    }
    const { data } = await octokit.rest.issues.createComment({ owner: repo.owner, repo: repo.name, issue_number: pullNumber(prNumber), body });
    return data.id;
  }

  /**
   * The user's role on the repository: `role_name` (admin, maintain, write, triage, read), or for a
   * custom role the legacy base role in `permission`, where maintain reads as write and triage as
   * read. A login GitHub does not know has none.
   */
  async permissionOf(repo: RepoRef, login: string): Promise<RepositoryRole> {
    if (!GITHUB_LOGIN.test(login)) return 'none';
    const { octokit } = await this.access(repo);
    try {
      const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ owner: repo.owner, repo: repo.name, username: login });
      if (isRepositoryRole(data.role_name)) return data.role_name;
      return LEGACY_PERMISSIONS.find((p) => p === data.permission) ?? 'none';
    } catch (err) {
      if (statusOf(err) === 404) return 'none';
      throw err;
    }
  }

  /** Adds a reaction to an issue comment (GitHub answers the existing one when it is already there). */
  async reactToComment(repo: RepoRef, commentId: number, content: '+1'): Promise<void> {
    if (!Number.isSafeInteger(commentId) || commentId <= 0) throw new Error(`not a comment id: ${commentId}`);
    const { octokit } = await this.access(repo);
    await octokit.rest.reactions.createForIssueComment({ owner: repo.owner, repo: repo.name, comment_id: commentId, content });
  }
}
