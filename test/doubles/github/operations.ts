// The GitHub REST operations the provider, the webhooks' fallbacks and the test CI use: the
// double serves exactly these (anything else fails the test) and the committed OpenAPI subset
// holds exactly these (test/doubles/github/extract-openapi.ts).

export const OPENAPI_PACKAGE = '@octokit/openapi@23.0.2';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface GitHubOperation {
  method: HttpMethod;
  /** The path template as written in the OpenAPI description. */
  path: string;
}

export const GITHUB_OPERATIONS: readonly GitHubOperation[] = [
  { method: 'post', path: '/app/installations/{installation_id}/access_tokens' },
  { method: 'get', path: '/repos/{owner}/{repo}/installation' },
  { method: 'get', path: '/repos/{owner}/{repo}' },
  { method: 'get', path: '/repos/{owner}/{repo}/pulls' },
  { method: 'post', path: '/repos/{owner}/{repo}/pulls' },
  { method: 'get', path: '/repos/{owner}/{repo}/pulls/{pull_number}' },
  { method: 'patch', path: '/repos/{owner}/{repo}/pulls/{pull_number}' },
  { method: 'put', path: '/repos/{owner}/{repo}/pulls/{pull_number}/merge' },
  { method: 'get', path: '/repos/{owner}/{repo}/git/ref/{ref}' },
  { method: 'get', path: '/repos/{owner}/{repo}/contents/{path}' },
  { method: 'get', path: '/repos/{owner}/{repo}/rules/branches/{branch}' },
  { method: 'get', path: '/repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks' },
  { method: 'post', path: '/repos/{owner}/{repo}/statuses/{sha}' },
  { method: 'post', path: '/repos/{owner}/{repo}/check-runs' },
  { method: 'get', path: '/repos/{owner}/{repo}/commits/{ref}/status' },
  { method: 'get', path: '/repos/{owner}/{repo}/commits/{ref}/check-runs' },
  { method: 'post', path: '/repos/{owner}/{repo}/issues/{issue_number}/comments' },
  { method: 'patch', path: '/repos/{owner}/{repo}/issues/comments/{comment_id}' },
  { method: 'post', path: '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions' },
  { method: 'get', path: '/repos/{owner}/{repo}/collaborators/{username}/permission' },
  { method: 'get', path: '/user' },
];
