// Who is signed in: the token and its organisation. Signing in asks the service who the token
// is (getTokenInfo); a 401 from any call signs out.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { call, setUnauthorizedHandler } from './api/client';
import { clearSession, readSession, writeSession, type StoredSession } from './session-storage';

interface SessionValue {
  session: StoredSession | null;
  signIn: (token: string) => Promise<StoredSession>;
  signOut: () => void;
}

const SessionContext = createContext<SessionValue | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<StoredSession | null>(readSession);
  const queryClient = useQueryClient();

  const signOut = useCallback(() => {
    clearSession();
    queryClient.clear();
    setSession(null);
  }, [queryClient]);

  const signIn = useCallback(async (token: string) => {
    const info = await call('getTokenInfo', {}, token);
    const next = { token, org: info.organization.slug, role: info.token.role };
    writeSession(next);
    setSession(next);
    return next;
  }, []);

  useEffect(() => setUnauthorizedHandler(signOut), [signOut]);

  const value = useMemo(() => ({ session, signIn, signOut }), [session, signIn, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}

/** Whether the signed-in token may change queues and quarantine overrides (the API's admin role). */
export function useIsAdmin(): boolean {
  return useSession().session?.role === 'admin';
}
