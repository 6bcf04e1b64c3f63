// Upload impacted targets from GitHub Actions without a stored secret: a workflow run exchanges
// its OpenID Connect token (`id-token: write`) for a short-lived token that only uploads impacted
// targets (PUT /v2/impacted-targets) of the run's own repository. The token from GitHub is checked
// against the issuer's published keys (github.com, or a GitHub Enterprise Server's issuer), its
// audience and its event; what is issued expires after 15 minutes and is then removed.
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { AppError } from '../../platform/errors.js';
import type { TokenRepository } from '../../platform/accounts/token-repository.js';
import { generateApiKey } from '../../platform/accounts/token-repository.js';
import type { RepoRef } from '../../platform/repo-ref.js';
import type { Logger } from '../../platform/logging.js';

export interface GitHubActionsLoginSettings {
  /** GITHUB_ACTIONS_OIDC_ISSUER: `https://token.actions.githubusercontent.com`, or a GHES's `https://<host>/_services/token`. */
  issuer: string;
  /** GITHUB_ACTIONS_OIDC_AUDIENCE: the `aud` the workflow asks for (`core.getIDToken(audience)`). */
  audience: string;
  /** GITHUB_HOST: the host of the repositories the issuer's runs belong to. */
  repositoryHost: string;
}

/** Events whose runs may log in (a run for `issue_comment`, `workflow_run` or `schedule` is not a pull request's CI). */
export const LOGIN_EVENTS = ['pull_request', 'merge_group', 'push', 'workflow_dispatch'] as const;

export const LOGIN_TTL_MS = 15 * 60_000;

export interface GitHubActionsLogin {
  token: string;
  expiresAt: Date;
  repository: RepoRef;
  /** The organisation the token acts for: the one with a queue on the repository. */
  orgId: string;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

const refused = (message: string) => new AppError('unauthenticated', 'github_actions_token_invalid', message);

export class GitHubActionsLoginService {
  private readonly keys: ReturnType<typeof createRemoteJWKSet>;

  constructor(
    private readonly deps: {
      settings: GitHubActionsLoginSettings;
      tokens: Pick<TokenRepository, 'register'>;
      /** The organisations with a queue on the repository. */
      orgsOf: (repo: RepoRef) => Promise<string[]>;
      logger: Logger;
    },
  ) {
    const issuer = new URL(deps.settings.issuer);
    if (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && LOOPBACK.test(issuer.hostname))) {
      throw new Error('GITHUB_ACTIONS_OIDC_ISSUER: must be an https URL (http only on loopback, for tests)');
    }
    // GitHub publishes its keys at <issuer>/.well-known/jwks (its discovery document says so).
    this.keys = createRemoteJWKSet(new URL(`${deps.settings.issuer.replace(/\/+$/, '')}/.well-known/jwks`), { timeoutDuration: 5000 });
  }

  async login(idToken: string, now = new Date()): Promise<GitHubActionsLogin> {
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(idToken, this.keys, {
        issuer: this.deps.settings.issuer,
        audience: this.deps.settings.audience,
        algorithms: ['RS256'],
        currentDate: now,
      }));
    } catch (err) {
      this.deps.logger.warn({ reason: err instanceof Error ? err.message : String(err) }, 'GitHub Actions login refused');
      throw refused('the GitHub Actions token is not valid here (signature, issuer, audience or expiry)');
    }
    const event = claims.event_name;
    if (typeof event !== 'string' || !(LOGIN_EVENTS as readonly string[]).includes(event)) {
      throw new AppError('forbidden', 'github_actions_event_not_allowed', `a run for ${String(event)} cannot log in; only ${LOGIN_EVENTS.join(', ')} runs can`);
    }
    const [owner, name, ...rest] = String(claims.repository ?? '').split('/');
    if (!owner || !name || rest.length > 0) throw refused('the GitHub Actions token names no repository');
    const repository: RepoRef = { host: this.deps.settings.repositoryHost, owner, name };
    const orgs = await this.deps.orgsOf(repository);
    if (orgs.length !== 1) {
      throw new AppError(
        'not_found',
        'repository_not_found',
        `no merge queue of ${owner}/${name} is served here${orgs.length > 1 ? ' for exactly one organisation' : ''}`,
      );
    }
    const orgId = orgs[0] as string;
    const expiresAt = new Date(now.getTime() + LOGIN_TTL_MS);
    const token = generateApiKey();
    const runId = typeof claims.run_id === 'string' ? claims.run_id : 'unknown';
    await this.deps.tokens.register(orgId, token, `GitHub Actions ${owner}/${name} run ${runId}`, {
      role: 'read',
      permissions: ['merge_and_cancel'],
      uploadsFor: repository,
      expiresAt,
      now,
    });
    this.deps.logger.info({ repository: `${owner}/${name}`, event, runId }, 'GitHub Actions login');
    return { token, expiresAt, repository, orgId };
  }
}
