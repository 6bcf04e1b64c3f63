// Who is signed in: either an API token (kept in the tab; signing in asks the service who it is,
// getTokenInfo) or a person signed in with the identity provider (the service's session, read
// from /auth/session when the dashboard opens). A 401 from any call signs out.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { RepoRef } from './api/types';
import { call, setCsrfToken, setUnauthorizedHandler } from './api/client';
import { clearSession, isRole, readSession, writeSession, type TokenRole } from './session-storage';

/** A person signed in with GitHub holds a role per repository, which the service reads from GitHub. */
export type SessionRole = TokenRole | 'per_repository';

export type Session =
  | { kind: 'token'; org: string; role: TokenRole; name: string }
  | { kind: 'person'; org: string; role: SessionRole; name: string; provider: string; csrfToken: string };

interface SessionValue {
  session: Session | null;
  /** True until the service has said whether a person is signed in. */
  checking: boolean;
  signIn: (token: string) => Promise<Session>;
  signOut: () => void;
}

const SessionContext = createContext<SessionValue | null>(null);

interface PersonSessionAnswer {
  person: { name: string; provider: string };
  organization: { slug: string };
  role: string;
  csrfToken: string;
}

async function readPersonSession(): Promise<Session | null> {
  const res = await fetch('/auth/session', { credentials: 'same-origin' });
  if (res.status !== 200) return null;
  const body = (await res.json()) as PersonSessionAnswer;
  if (!isRole(body.role) && body.role !== 'per_repository') return null;
  return { kind: 'person', org: body.organization.slug, role: body.role, name: body.person.name, provider: body.person.provider, csrfToken: body.csrfToken };
}

const tokenSession = (): Session | null => {
  const stored = readSession();
  return stored ? { kind: 'token', org: stored.org, role: stored.role, name: stored.name } : null;
};

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(tokenSession);
  const [checking, setChecking] = useState(session === null);
  const queryClient = useQueryClient();

  useEffect(() => {
    if (!checking) return;
    let live = true;
    readPersonSession()
      .catch(() => null)
      .then((person) => {
        if (!live) return;
        setCsrfToken(person?.kind === 'person' ? person.csrfToken : null);
        setSession(person);
        setChecking(false);
      });
    return () => {
      live = false;
    };
  }, [checking]);

  const forget = useCallback(() => {
    clearSession();
    setCsrfToken(null);
    queryClient.clear();
    setSession(null);
  }, [queryClient]);

  const signOut = useCallback(() => {
    if (session?.kind === 'person') {
      // The service ends the session; the page forgets it whatever the answer.
      void fetch('/auth/sign-out', { method: 'POST', credentials: 'same-origin', headers: { 'x-csrf-token': session.csrfToken } })
        .catch(() => undefined)
        .then(forget);
      return;
    }
    forget();
  }, [session, forget]);

  const signIn = useCallback(async (token: string) => {
    const info = await call('getTokenInfo', {}, token);
    writeSession({ token, org: info.organization.slug, role: info.token.role, name: info.token.name });
    const next: Session = { kind: 'token', org: info.organization.slug, role: info.token.role, name: info.token.name };
    setSession(next);
    return next;
  }, []);

  useEffect(() => setUnauthorizedHandler(forget), [forget]);

  const value = useMemo(() => ({ session, checking, signIn, signOut }), [session, checking, signIn, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}

/**
 * The role held on a repository: the token's or the person's for the whole organisation, or —
 * signed in with GitHub — the one the service reads from GitHub for that repository.
 */
export function useRoleOn(repo: RepoRef | null): TokenRole | null {
  const role = useSession().session?.role ?? null;
  const perRepository = role === 'per_repository' && repo !== null;
  const asked = useQuery({
    queryKey: ['getTokenInfo', repo],
    queryFn: () => call('getTokenInfo', repo ? { repo } : {}),
    enabled: perRepository,
    staleTime: 30_000,
  });
  if (role !== 'per_repository') return role;
  return asked.data?.token.role ?? null;
}

/** Whether the caller may change this repository's queues and quarantine overrides (the API's admin role). */
export function useIsAdmin(repo: RepoRef | null): boolean {
  return useRoleOn(repo) === 'admin';
}
