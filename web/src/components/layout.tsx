// The frame of every signed-in page: a skip link, the header with navigation and sign-out, and
// the main landmark. Pages of another organisation than the token's are refused here.
import { Link, NavLink, Navigate, Outlet, useLocation, useParams } from 'react-router';
import { useSession } from '../session';
import { paths } from '../links';

export function SignedInLayout() {
  const { session, signOut } = useSession();
  const location = useLocation();
  const { org } = useParams();
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
        </nav>
        <span className="org" title="The organisation of your API token">
          {session.org}
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
              This page belongs to the organisation <strong>{org}</strong>; your API token is for <strong>{session.org}</strong>. Sign out and sign in with a
              token of {org}, or go to <Link to={paths.queues(session.org)}>your queues</Link>.
            </p>
          </section>
        ) : (
          <Outlet />
        )}
      </main>
    </>
  );
}
