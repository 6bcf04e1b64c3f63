// `openmq login` lands here: the CLI on this computer asks for a personal token. A person signed
// in approves it; the page then sends a one-time code to the CLI's own loopback address (never to
// another host), and the CLI collects the token with a secret only it holds. Signed out, the
// person signs in first and comes back here (a deep link like any other).
import { useState, type FormEvent } from 'react';
import { Navigate, useLocation, useSearchParams } from 'react-router';
import { useSession } from '../session';
import { paths } from '../links';
import type { TokenRole } from '../session-storage';

const ROLES: TokenRole[] = ['read', 'write', 'admin'];
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The CLI's request, if it is one: a loopback port, its state and its PKCE challenge. */
function cliRequest(params: URLSearchParams): { port: number; state: string; challenge: string } | null {
  const port = Number(params.get('port'));
  const state = params.get('state') ?? '';
  const challenge = params.get('challenge') ?? '';
  if (!Number.isInteger(port) || port < 1024 || port > 65_535) return null;
  if (!BASE64URL.test(state) || state.length > 128 || !BASE64URL.test(challenge) || challenge.length !== 43) return null;
  return { port, state, challenge };
}

export function CliLoginPage() {
  const { session, checking } = useSession();
  const location = useLocation();
  const [params] = useSearchParams();
  const request = cliRequest(params);
  const [name, setName] = useState(params.get('name')?.slice(0, 128) || 'openmq CLI');
  const wanted = params.get('role');
  const [role, setRole] = useState<TokenRole | null>(ROLES.find((r) => r === wanted) ?? null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  if (checking) return null;
  if (!session) return <Navigate to={`${paths.signIn}?next=${encodeURIComponent(`${location.pathname}${location.search}`)}`} replace />;

  const body = (() => {
    if (!request) return <p role="alert">This link is not a request of the openmq CLI. Run `openmq login` again.</p>;
    if (session.kind !== 'person') {
      return <p role="alert">A token for the CLI is made by a person: sign out and sign in as yourself, then run `openmq login` again.</p>;
    }
    const held = session.role;
    // Signed in with GitHub, the token's role is a cap on your permission on each repository.
    const allowed = held === 'per_repository' ? ROLES : ROLES.slice(0, ROLES.indexOf(held) + 1);
    const chosen = role && allowed.includes(role) ? role : held === 'per_repository' ? 'write' : held;
    const { csrfToken } = session;
    async function approve(e: FormEvent) {
      e.preventDefault();
      if (!request) return;
      setBusy(true);
      setError(null);
      const res = await fetch('/auth/cli/grant', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
        body: JSON.stringify({ challenge: request.challenge, name: name.trim(), role: chosen }),
      }).catch(() => null);
      const answer = (await res?.json().catch(() => null)) as { code?: string; error?: { message?: string } } | null;
      if (!res?.ok || !answer?.code) {
        setError(answer?.error?.message ?? 'The service did not approve the sign-in.');
        setBusy(false);
        return;
      }
      window.location.assign(`http://127.0.0.1:${request.port}/callback?${new URLSearchParams({ code: answer.code, state: request.state }).toString()}`);
    }
    return (
      <form onSubmit={approve}>
        <p>
          The openmq CLI on this computer asks for a personal token, signed in as <strong>{session.name}</strong>. Approve only if you just ran{' '}
          <code>openmq login</code>.
        </p>
        <label htmlFor="cli-token-name">Token name</label>{' '}
        <input id="cli-token-name" type="text" required maxLength={128} value={name} onChange={(e) => setName(e.target.value)} />{' '}
        <label htmlFor="cli-token-role">Role</label>{' '}
        <select id="cli-token-role" value={chosen} onChange={(e) => setRole(e.target.value as TokenRole)}>
          {allowed.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>{' '}
        <button type="submit" disabled={busy || name.trim() === ''}>
          Approve the CLI
        </button>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
      </form>
    );
  })();

  return (
    <main id="main" className="sign-in">
      <h1>Sign in the openmq CLI</h1>
      {body}
    </main>
  );
}
