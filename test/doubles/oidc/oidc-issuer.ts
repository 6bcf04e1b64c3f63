// A real OpenID Connect provider for the tests, on loopback: the certified `oidc-provider`
// package, which checks every request of the code flow itself (client authentication, PKCE,
// redirect URI, code expiry and reuse) and signs ID tokens with a key it publishes at its
// jwks_uri. Around it, only what a test needs: a login page (a person is picked by login, no
// password), people with groups, and a switch that alters ID tokens in flight, as an attacker
// between the provider and the service would, to prove that the service checks signatures.
import http from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';

export interface IssuerPerson {
  login: string;
  name: string;
  email: string;
  groups: string[];
}

export interface IssuerClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class OidcIssuerDouble {
  private provider: Provider | null = null;
  private server: http.Server | null = null;
  private baseUrl = '';
  /** Alter the payload of every ID token the token endpoint returns (the signature then fails). */
  tamperIdTokens = false;
  /** Hold each redirect that carries a code back to the client this long, as a slow browser would. */
  delayCodeDeliveryMs = 0;

  private constructor(
    private readonly people: IssuerPerson[],
    private readonly codeTtlSeconds: number,
  ) {}

  /** Listens first: the service needs the issuer's URL before the client's redirect URI is known. */
  static async listen(opts: { people: IssuerPerson[]; codeTtlSeconds?: number }): Promise<OidcIssuerDouble> {
    const issuer = new OidcIssuerDouble(opts.people, opts.codeTtlSeconds ?? 60);
    issuer.server = http.createServer((req, res) => void issuer.handle(req, res));
    await new Promise<void>((resolve) => issuer.server?.listen(0, '127.0.0.1', resolve));
    issuer.baseUrl = `http://127.0.0.1:${(issuer.server.address() as AddressInfo).port}`;
    return issuer;
  }

  get url(): string {
    return this.baseUrl;
  }

  /** Starts the provider with its one client. */
  register(client: IssuerClient): void {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test-signing-key', use: 'sig', alg: 'RS256' };
    const people = this.people;
    const configuration: Configuration = {
      clients: [
        {
          client_id: client.clientId,
          client_secret: client.clientSecret,
          redirect_uris: [client.redirectUri],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      jwks: { keys: [jwk as never] },
      cookies: { keys: ['test-issuer-cookie-key-0123456789'] },
      pkce: { required: () => true },
      // Expiry exactly as configured: the tests age codes by seconds.
      clockTolerance: 0,
      ttl: { AuthorizationCode: this.codeTtlSeconds, Interaction: 600, Grant: 3600, Session: 3600, AccessToken: 600, IdToken: 600 },
      // The default error page loads a font from the internet; this one names the error only.
      renderError: (ctx, out) => {
        ctx.type = 'text/plain';
        ctx.body = `${out.error}: ${out.error_description ?? ''}`;
      },
      scopes: ['openid', 'profile', 'email', 'groups'],
      claims: { openid: ['sub'], profile: ['name'], email: ['email', 'email_verified'], groups: ['groups'] },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      findAccount: (_ctx, sub) => {
        const person = people.find((p) => p.login === sub);
        if (!person) return undefined;
        return { accountId: sub, claims: () => ({ sub, name: person.name, email: person.email, email_verified: true, groups: person.groups }) };
      },
      // A first-party client: what it asks for is granted without a consent screen.
      loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
        const accountId = ctx.oidc.session?.accountId;
        const clientId = ctx.oidc.client?.clientId;
        if (!accountId || !clientId) return undefined;
        const grant = new ctx.oidc.provider.Grant({ accountId, clientId });
        grant.addOIDCScope(String(ctx.oidc.params?.scope ?? 'openid'));
        await grant.save();
        return grant;
      },
    };
    const provider = new Provider(this.baseUrl, configuration);
    provider.use(async (ctx, next) => {
      await next();
      if (this.delayCodeDeliveryMs > 0 && (ctx.response.get('location') ?? '').startsWith(`${client.redirectUri}?code=`)) {
        await new Promise((resolve) => setTimeout(resolve, this.delayCodeDeliveryMs));
      }
      const body = ctx.body as { id_token?: string } | undefined;
      if (this.tamperIdTokens && ctx.path === '/token' && body?.id_token) {
        const [header, payload, signature] = body.id_token.split('.');
        const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
        const altered = Buffer.from(JSON.stringify({ ...claims, groups: ['platform'] })).toString('base64url');
        ctx.body = { ...body, id_token: `${header}.${altered}.${signature}` };
      }
    });
    this.provider = provider;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const provider = this.provider;
    if (!provider) {
      res.writeHead(503).end('no client registered yet');
      return;
    }
    const m = /^\/interaction\/([^/?]+)/.exec(req.url ?? '');
    if (!m) {
      provider.callback()(req, res);
      return;
    }
    try {
      const details = await provider.interactionDetails(req, res);
      if (req.method === 'POST') {
        const login = new URLSearchParams(await readBody(req)).get('login') ?? '';
        if (!this.people.some((p) => p.login === login)) {
          await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'unknown person' });
          return;
        }
        await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><title>Test identity provider</title></head><body><main>
<h1>Test identity provider</h1>
<form method="post" action="/interaction/${escape(details.uid)}">
<label for="login">Login</label> <input id="login" name="login" required>
<button type="submit">Sign in at the provider</button>
</form></main></body></html>`);
    } catch (err) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(err instanceof Error ? err.message : String(err));
    }
  }
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
