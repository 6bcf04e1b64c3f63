// GitHub Actions' OpenID Connect issuer, on loopback: the discovery document and the key set at
// the paths GitHub publishes them (`/.well-known/openid-configuration`, `/.well-known/jwks`), and
// ID tokens as a workflow run gets them — RS256, with the `kid` of a published key and the claims
// GitHub documents (docs.github.com, "About security hardening with OpenID Connect"). It keeps its
// keys (rotation publishes the new one beside the old) and answers nothing else.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type CryptoKey } from 'jose';

export interface RunClaims {
  repository: string;
  event_name: string;
  audience: string;
  /** Seconds from now until the token expires (GitHub: about 5 minutes); negative: already expired. */
  expiresIn?: number;
  run_id?: string;
  ref?: string;
  sha?: string;
}

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export interface ActionsIssuer {
  url: string;
  /** A run's ID token, signed by the current key. */
  issue(claims: RunClaims): Promise<string>;
  /** A token signed by a key the issuer never published (what a forger can make). */
  forge(claims: RunClaims): Promise<string>;
  /** Requests the issuer was sent, as `METHOD path`. */
  requests: string[];
  close(): Promise<void>;
}

async function newKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

export async function startActionsIssuer(): Promise<ActionsIssuer> {
  const keys = [await newKey('key-1')];
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method ?? ''} ${req.url ?? ''}`);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET') return send(405, { message: 'Method Not Allowed' });
    if (req.url === '/.well-known/openid-configuration') {
      return send(200, {
        issuer: url,
        jwks_uri: `${url}/.well-known/jwks`,
        subject_types_supported: ['public', 'pairwise'],
        response_types_supported: ['id_token'],
        claims_supported: [
          'sub',
          'aud',
          'exp',
          'iat',
          'iss',
          'jti',
          'nbf',
          'ref',
          'repository',
          'repository_id',
          'repository_owner',
          'run_id',
          'event_name',
          'sha',
        ],
        id_token_signing_alg_values_supported: ['RS256'],
        scopes_supported: ['openid'],
      });
    }
    if (req.url === '/.well-known/jwks') return send(200, { keys: keys.map((k) => k.jwk) });
    return send(404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const sign = async (key: SigningKey, c: RunClaims) => {
    const now = Math.floor(Date.now() / 1000);
    const [owner] = c.repository.split('/');
    return new SignJWT({
      repository: c.repository,
      repository_owner: owner,
      event_name: c.event_name,
      ref: c.ref ?? 'refs/heads/main',
      sha: c.sha ?? '0'.repeat(40),
      run_id: c.run_id ?? '1234567890',
    })
      .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
      .setIssuer(url)
      .setAudience(c.audience)
      .setSubject(`repo:${c.repository}:ref:${c.ref ?? 'refs/heads/main'}`)
      .setIssuedAt(now - 10)
      .setNotBefore(now - 10)
      .setExpirationTime(now + (c.expiresIn ?? 300))
      .sign(key.privateKey);
  };

  return {
    url,
    requests,
    issue: (claims) => sign(keys.at(-1) as SigningKey, claims),
    forge: async (claims) => sign(await newKey('key-1'), claims),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
