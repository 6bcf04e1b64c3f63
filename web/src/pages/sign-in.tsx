// Sign in with an API token. The token goes to the service in a header only; the page you came
// from (a deep link) opens once it is accepted.
import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { useSession } from '../session';
import { paths, safeNext } from '../links';

export function SignInPage() {
  const { session, signIn } = useSession();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const next = safeNext(params.get('next'));

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

  return (
    <main id="main" className="sign-in">
      <h1>openmq</h1>
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
        Use a token of your organisation: <code>npm start</code> prints one when none is configured, and <code>npm run token -- create --org &lt;slug&gt;</code>{' '}
        makes more. The token is kept in this tab only and forgotten when you close it or sign out.
      </p>
    </main>
  );
}
