// Sign in: with the identity provider the service is configured with (a link that leaves for the
// provider and comes back signed in), or with an API token (sent to the service in a header only).
// The page you came from (a deep link) opens once you are in; a sign-in that failed comes back
// here with `?error=<code>`, and the service's words for it are shown.
import { useEffect, useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { useSession } from '../session';
import { paths, safeNext } from '../links';

interface SignInMethods {
  token: boolean;
  oidc: { name: string; start: string } | null;
  github: { name: string; start: string } | null;
  messages: Record<string, string>;
}

export function SignInPage() {
  const { session, checking, signIn } = useSession();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [methods, setMethods] = useState<SignInMethods | null>(null);
  const next = safeNext(params.get('next'));
  const failed = params.get('error');

  useEffect(() => {
    let live = true;
    fetch('/auth/methods')
      .then((res) => (res.ok ? (res.json() as Promise<SignInMethods>) : null))
      .catch(() => null)
      .then((m) => {
        if (live) setMethods(m);
      });
    return () => {
      live = false;
    };
  }, []);

  if (checking) return null;
  if (session && !busy) return <Navigate to={next ?? paths.queues(session.org)} replace />;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const s = await signIn(token.trim());
      navigate(next ?? paths.queues(s.org), { replace: true });
    } catch (err) {
      setError(err instanceof Error && 'status' in err && err.status === 401 ? 'The service does not know this token.' : String(err));
      setBusy(false);
    }
  }

  const providers = [methods?.oidc, methods?.github].filter((p): p is { name: string; start: string } => Boolean(p));
  const startOf = (p: { start: string }) => `${p.start}${next ? `?next=${encodeURIComponent(next)}` : ''}`;
  return (
    <main id="main" className="sign-in">
      <h1>openmq</h1>
      {failed && methods && (
        <p className="error" role="alert" data-testid="sign-in-failed">
          {methods.messages[failed] ?? 'The sign-in did not finish. Start again.'}
        </p>
      )}
      {providers.map((p) => (
        <p key={p.start}>
          <a className="button" href={startOf(p)}>
            Sign in with {p.name}
          </a>
        </p>
      ))}
      <form onSubmit={submit} aria-describedby="sign-in-help">
        <label htmlFor="token">API token</label>
        <input id="token" name="token" type="password" autoComplete="current-password" required value={token} onChange={(e) => setToken(e.target.value)} />
        <button type="submit" disabled={busy || token.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
      </form>
      <p id="sign-in-help" className="muted">
        {providers.length > 0 ? 'Or use an API token: for automation and small setups. ' : 'Use a token of your organisation: '}
        <code>npm start</code> prints one when none is configured, and <code>npm run token -- create --org &lt;slug&gt;</code> makes more. The token is kept in
        this tab only and forgotten when you close it or sign out.
      </p>
    </main>
  );
}
