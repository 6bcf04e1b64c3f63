// The API token lives in the tab's session storage: gone when the tab closes, never sent in a
// URL, never readable by another origin. (docs/decisions.md: "Dashboard sign-in".)
const TOKEN_KEY = 'openmq.token';
const ORG_KEY = 'openmq.org';
const ROLE_KEY = 'openmq.role';

export type TokenRole = 'read' | 'write' | 'admin';

export interface StoredSession {
  token: string;
  org: string;
  /** What the token may do: the dashboard shows controls only to tokens allowed to use them. */
  role: TokenRole;
}

const isRole = (v: string | null): v is TokenRole => v === 'read' || v === 'write' || v === 'admin';

export function readToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function readSession(): StoredSession | null {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const org = sessionStorage.getItem(ORG_KEY);
  const role = sessionStorage.getItem(ROLE_KEY);
  // A session stored before roles were kept is asked again (signing in reads the role).
  return token && org && isRole(role) ? { token, org, role } : null;
}

export function writeSession(s: StoredSession): void {
  sessionStorage.setItem(TOKEN_KEY, s.token);
  sessionStorage.setItem(ORG_KEY, s.org);
  sessionStorage.setItem(ROLE_KEY, s.role);
}

export function clearSession(): void {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(ORG_KEY);
  sessionStorage.removeItem(ROLE_KEY);
}
