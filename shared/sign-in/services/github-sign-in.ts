// Sign-in with GitHub (github.com or GitHub Enterprise Server): the web application flow of the
// GitHub App's user authorization — or of an OAuth App where no App is configured — with state
// and PKCE (S256). The user's token is used once, to learn who they are (GET /user), and then
// dropped: what they may do is read per repository, by the service's own GitHub credentials
// (repository-access.ts), so a session never holds a GitHub token.
import type { SignInAttemptRepository } from '../store/sign-in-attempt-repository.js';
import type { Completed, Began } from './oidc-sign-in.js';
import { beginAttempt, pkceChallenge, takeAttempt } from './sign-in-attempts.js';
import { SignInError } from './sign-in-error.js';

export interface GitHubSignInSettings {
  clientId: string;
  clientSecret: string;
  /** Where people sign in: https://github.com, or the Enterprise Server's address (GITHUB_WEB_URL). */
  webUrl: string;
  /** The REST API (GITHUB_API_URL). */
  apiUrl: string;
}

interface TokenAnswer {
  access_token?: string;
  error?: string;
  error_description?: string;
}

interface GitHubUser {
  id: number;
  login: string;
  name: string | null;
  email: string | null;
}

const TIMEOUT_MS = 10_000;

export class GitHubSignIn {
  constructor(
    readonly settings: GitHubSignInSettings,
    private readonly attempts: SignInAttemptRepository,
  ) {}

  async begin(redirectUri: string, next: string, now = new Date()): Promise<Began> {
    const { state, attempt } = await beginAttempt(this.attempts, { provider: 'github', redirectUri, next }, now);
    const url = new URL(`${this.settings.webUrl}/login/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: this.settings.clientId,
      redirect_uri: redirectUri,
      state,
      code_challenge: pkceChallenge(attempt.codeVerifier),
      code_challenge_method: 'S256',
      allow_signup: 'false',
    }).toString();
    return { url, state };
  }

  async complete(query: URLSearchParams, browserState: string | null, now = new Date()): Promise<Completed> {
    const attempt = await takeAttempt(this.attempts, query, browserState, now);
    const code = query.get('code');
    if (!code) throw new SignInError('code_rejected', 'no code in the callback');
    const answer = await this.request<TokenAnswer>(`${this.settings.webUrl}/login/oauth/access_token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: this.settings.clientId,
        client_secret: this.settings.clientSecret,
        code,
        redirect_uri: attempt.redirectUri,
        code_verifier: attempt.codeVerifier,
      }).toString(),
    });
    // GitHub answers a refused code with 200 and an `error` field.
    if (!answer.access_token) throw new SignInError('code_rejected', `${answer.error ?? 'no access token'}: ${answer.error_description ?? 'no description'}`);
    const user = await this.request<GitHubUser>(`${this.settings.apiUrl}/user`, {
      headers: { accept: 'application/vnd.github+json', authorization: `Bearer ${answer.access_token}`, 'x-github-api-version': '2022-11-28' },
    });
    if (!Number.isSafeInteger(user.id) || typeof user.login !== 'string') throw new SignInError('provider_unreachable', 'GET /user answered no user');
    return {
      person: {
        personId: `github:${user.id}`,
        provider: 'github',
        subject: String(user.id),
        login: user.login,
        name: user.name ? `${user.name} (@${user.login})` : `@${user.login}`,
        email: user.email,
      },
      role: 'per_repository',
      next: attempt.next,
    };
  }

  private async request<T>(url: string, init: RequestInit): Promise<T> {
    let res: Response;
    try {
      res = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (err) {
      throw new SignInError('provider_unreachable', `${url}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!res.ok) throw new SignInError('provider_unreachable', `${url} answered ${res.status}`);
    return (await res.json()) as T;
  }
}
