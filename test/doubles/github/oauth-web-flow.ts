// GitHub's web application flow, as the GitHub double serves it (GitHub App user authorization
// and OAuth Apps share it): GET /login/oauth/authorize shows a page where the test's person is
// picked by login (GitHub's own page would ask for a password), then redirects back with a code;
// POST /login/oauth/access_token exchanges it. The rules are GitHub's documented ones
// (docs.github.com, "Authorizing OAuth apps" and "Generating a user access token for a GitHub
// App"), which the REST description does not cover: the client id and secret, a redirect_uri equal
// to the one authorized, a code used once within ten minutes, PKCE S256 when a challenge was
// sent, and errors answered with 200 and an `error` field. Anything else is recorded as a problem.
import type http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';

export interface DoubleUser {
  id: number;
  login: string;
  name: string | null;
  email: string | null;
}

interface IssuedCode {
  login: string;
  redirectUri: string;
  challenge: string | null;
  expiresAt: number;
}

const CODE_TTL_MS = 10 * 60_000;
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class OAuthWebFlow {
  /** The App's (or OAuth App's) client credentials the service must present. */
  client: { id: string; secret: string; redirectUri: string } | null = null;
  readonly users = new Map<string, DoubleUser>();
  private readonly codes = new Map<string, IssuedCode>();
  private readonly userTokens = new Map<string, string>();

  constructor(private readonly problems: string[]) {}

  /** The person a user access token was issued to. */
  userOfToken(token: string | null): DoubleUser | null {
    const login = token ? this.userTokens.get(token) : undefined;
    return login ? (this.users.get(login) ?? null) : null;
  }

  /** Serves the two endpoints; false for any other path. */
  async handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL, readBody: () => Promise<string>): Promise<boolean> {
    if (url.pathname === '/login/oauth/authorize') {
      if (req.method === 'GET') this.authorizePage(res, url);
      else this.authorize(res, new URLSearchParams(await readBody()));
      return true;
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      this.exchange(req, res, await readBody());
      return true;
    }
    return false;
  }

  private authorizeProblem(params: URLSearchParams): string | null {
    if (!this.client) return 'no OAuth client is registered with the double';
    if (params.get('client_id') !== this.client.id) return `unknown client_id ${params.get('client_id')}`;
    if (params.get('redirect_uri') !== this.client.redirectUri) return `redirect_uri ${params.get('redirect_uri')} is not the registered callback`;
    if (!params.get('state')) return 'no state';
    const method = params.get('code_challenge_method');
    if (params.get('code_challenge') && method !== 'S256') return `code_challenge_method ${method}`;
    return null;
  }

  private authorizePage(res: http.ServerResponse, url: URL): void {
    const problem = this.authorizeProblem(url.searchParams);
    if (problem) {
      this.problems.push(`GET /login/oauth/authorize: ${problem}`);
      res.writeHead(400, { 'content-type': 'text/plain' }).end(problem);
      return;
    }
    const hidden = [...url.searchParams].map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(v)}">`).join('');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><title>Authorize application</title></head><body><main>
<h1>Sign in to GitHub to continue</h1>
<form method="post" action="/login/oauth/authorize">${hidden}
<label for="login">GitHub login</label> <input id="login" name="login" required>
<button type="submit">Authorize</button>
</form></main></body></html>`);
  }

  private authorize(res: http.ServerResponse, form: URLSearchParams): void {
    const problem = this.authorizeProblem(form);
    const login = form.get('login') ?? '';
    if (problem || !this.users.has(login)) {
      if (problem) this.problems.push(`POST /login/oauth/authorize: ${problem}`);
      res.writeHead(400, { 'content-type': 'text/plain' }).end(problem ?? `no GitHub user ${login}`);
      return;
    }
    const code = randomBytes(10).toString('hex');
    const redirectUri = form.get('redirect_uri') ?? '';
    this.codes.set(code, { login, redirectUri, challenge: form.get('code_challenge'), expiresAt: Date.now() + CODE_TTL_MS });
    const back = new URL(redirectUri);
    back.search = new URLSearchParams({ code, state: form.get('state') ?? '' }).toString();
    res.writeHead(302, { location: back.href }).end();
  }

  private exchange(req: http.IncomingMessage, res: http.ServerResponse, text: string): void {
    const form = (req.headers['content-type'] ?? '').includes('json')
      ? new URLSearchParams(JSON.parse(text) as Record<string, string>)
      : new URLSearchParams(text);
    const answer = (body: Record<string, string>) => {
      // GitHub answers JSON only when asked to; the service must ask.
      if (!(req.headers.accept ?? '').includes('application/json')) this.problems.push('POST /login/oauth/access_token: no Accept: application/json');
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
    };
    const refuse = (error: string, description: string) =>
      answer({
        error,
        error_description: description,
        error_uri: 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors',
      });
    if (!this.client || form.get('client_id') !== this.client.id || form.get('client_secret') !== this.client.secret) {
      return refuse('incorrect_client_credentials', 'The client_id and/or client_secret passed are incorrect.');
    }
    const code = form.get('code') ?? '';
    const issued = this.codes.get(code);
    this.codes.delete(code);
    if (!issued || issued.expiresAt <= Date.now()) return refuse('bad_verification_code', 'The code passed is incorrect or expired.');
    if (form.get('redirect_uri') !== null && form.get('redirect_uri') !== issued.redirectUri) {
      return refuse('redirect_uri_mismatch', 'The redirect_uri MUST match the registered callback URL for this application.');
    }
    if (issued.challenge) {
      const verifier = form.get('code_verifier') ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== issued.challenge)
        return refuse('bad_verification_code', 'The code_verifier does not match the challenge.');
    }
    const token = `ghu_${randomBytes(18).toString('base64url')}`;
    this.userTokens.set(token, issued.login);
    answer({ access_token: token, token_type: 'bearer', scope: '' });
  }
}
