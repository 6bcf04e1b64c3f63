// Sign-in with an OpenID Connect provider (Okta, Entra ID, Google, Keycloak…): the authorization
// code flow with PKCE (S256), state and nonce, through openid-client. The ID token's signature is
// checked against the keys the issuer publishes (its jwks_uri), not only its claims; the role comes
// from a claim (role-mapping.ts) of the ID token or of the userinfo endpoint.
import * as oidc from 'openid-client';
import type { SignInAttemptRepository } from '../store/sign-in-attempt-repository.js';
import type { SessionRole, SignedInPerson } from '../store/session-repository.js';
import { roleFromClaims, type RoleMapping } from '../domain/role-mapping.js';
import { SignInError } from './sign-in-error.js';
import { beginAttempt, pkceChallenge, takeAttempt } from './sign-in-attempts.js';

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated; always includes `openid`. */
  scopes: string;
  roles: RoleMapping;
  /** The button's words: "Sign in with <displayName>". */
  displayName: string;
}

/** Plain http is for an issuer on this machine only (development and the tests); config.ts refuses others. */
const isLoopbackHttp = (issuer: URL) => issuer.protocol === 'http:' && /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/.test(issuer.hostname);

export interface Began {
  /** The provider's authorization URL to redirect the browser to. */
  url: URL;
  /** Kept in a short cookie of this browser: the callback must come back to the browser that began. */
  state: string;
}

export interface Completed {
  person: SignedInPerson;
  /** Null: the person has no role here. */
  role: SessionRole | null;
  next: string;
}

export class OidcSignIn {
  private discovered: Promise<oidc.Configuration> | null = null;

  constructor(
    readonly settings: OidcSettings,
    private readonly attempts: SignInAttemptRepository,
  ) {}

  async begin(redirectUri: string, next: string, now = new Date()): Promise<Began> {
    const config = await this.configuration();
    const { state, attempt } = await beginAttempt(this.attempts, { provider: 'oidc', redirectUri, next }, now);
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: this.settings.scopes,
      response_type: 'code',
      state,
      nonce: attempt.nonce,
      code_challenge: pkceChallenge(attempt.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url, state };
  }

  /** Finishes the sign-in the provider redirected back with (`query`: the callback's parameters). */
  async complete(query: URLSearchParams, browserState: string | null, now = new Date()): Promise<Completed> {
    const attempt = await takeAttempt(this.attempts, query, browserState, now);
    const config = await this.configuration();
    const callback = new URL(attempt.redirectUri);
    callback.search = query.toString();
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: attempt.codeVerifier,
        expectedState: query.get('state') ?? '',
        expectedNonce: attempt.nonce,
        idTokenExpected: true,
      });
    } catch (err) {
      throw classify(err);
    }
    const idClaims = tokens.claims();
    if (!idClaims) throw new SignInError('id_token_invalid', 'no ID token in the answer');
    // Providers put name, email and groups in the ID token or only at the userinfo endpoint; the
    // ID token's signed claims win where both speak.
    let claims: Record<string, unknown> & { sub: string } = idClaims;
    if (config.serverMetadata().userinfo_endpoint) {
      try {
        claims = { ...(await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub)), ...idClaims };
      } catch (err) {
        throw classify(err);
      }
    }
    const email = typeof claims.email === 'string' ? claims.email : null;
    const given = [claims.name, claims.preferred_username, email].find((v): v is string => typeof v === 'string' && v.trim() !== '') ?? claims.sub;
    return {
      person: {
        personId: `oidc:${claims.sub}`,
        provider: 'oidc',
        subject: claims.sub,
        login: null,
        name: email && given !== email ? `${given} <${email}>` : given,
        email,
      },
      role: roleFromClaims(claims, this.settings.roles),
      next: attempt.next,
    };
  }

  /** The issuer's metadata, fetched once (again after a failure). */
  private configuration(): Promise<oidc.Configuration> {
    this.discovered ??= oidc
      .discovery(new URL(this.settings.issuer), this.settings.clientId, undefined, oidc.ClientSecretBasic(this.settings.clientSecret), {
        execute: [oidc.enableNonRepudiationChecks, ...(isLoopbackHttp(new URL(this.settings.issuer)) ? [oidc.allowInsecureRequests] : [])],
        timeout: 10,
      })
      .catch((err: unknown) => {
        this.discovered = null;
        throw new SignInError('provider_unreachable', `discovery of ${this.settings.issuer} failed: ${err instanceof Error ? err.message : String(err)}`);
      });
    return this.discovered;
  }
}

/** An error of the token exchange or the ID token's checks, as the sign-in page names it. */
function classify(err: unknown): SignInError {
  if (err instanceof SignInError) return err;
  if (err instanceof oidc.ResponseBodyError) return new SignInError('code_rejected', `${err.error}: ${err.error_description ?? 'no description'}`);
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof oidc.ClientError && err.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM') return new SignInError('provider_unreachable', message);
  if (err instanceof oidc.ClientError) return new SignInError('id_token_invalid', `${err.code ?? 'client error'}: ${message}`);
  return new SignInError('provider_unreachable', message);
}
