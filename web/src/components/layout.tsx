// The frame of every signed-in page: a skip link, the header with navigation, who is signed in
// with what role, and sign-out, and the main landmark. Pages of another organisation than the
// session's are refused here; a visitor not signed in is sent to sign in and brought back.
import { Link, NavLink, Navigate, Outlet, useLocation, useParams } from 'react-router';
import { useSession } from '../session';
import { paths } from '../links';

export function SignedInLayout() {
  const { session, checking, signOut } = useSession();
  const location = useLocation();
  const { org } = useParams();
  if (checking) {
    return (
      <main id="main">
        <p className="muted" role="status">
          Checking your session…
        </p>
      </main>
    );
  }
  if (!session) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`${paths.signIn}?next=${encodeURIComponent(next)}`} replace />;
  }
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link to={paths.queues(session.org)} className="brand">
          openmq
        </Link>
        <nav aria-label="Main">
          <NavLink to={paths.queues(session.org)}>Merge queues</NavLink>
          <NavLink to={paths.flakyTests(session.org)}>Flaky tests</NavLink>
          {session.kind === 'person' && session.role !== 'per_repository' && <NavLink to={paths.tokens(session.org)}>Your tokens</NavLink>}
          {session.role === 'admin' && <NavLink to={paths.apiKeys(session.org)}>API keys</NavLink>}
        </nav>
        <span className="org" title="Your organisation">
          {session.org}
        </span>
        <span
          className="who"
          data-testid="signed-in-as"
          title={session.kind === 'token' ? 'Signed in with an API token' : `Signed in with ${session.provider}`}
        >
          {session.kind === 'token' ? `token ${session.name}` : session.name} · {session.role === 'per_repository' ? 'role per repository' : session.role}
        </span>
        <button type="button" className="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {org !== undefined && org !== session.org ? (
          <section className="notice" role="alert">
            <h1>Another organisation</h1>
            <p>
              This page belongs to the organisation <strong>{org}</strong>; you are signed in to <strong>{session.org}</strong>. Sign out and sign in to {org},
              or go to <Link to={paths.queues(session.org)}>your queues</Link>.
            </p>
          </section>
        ) : (
          <Outlet />
        )}
      </main>
    </>
  );
}
