// An API token lives in the tab's session storage: gone when the tab closes, never sent in a
// URL, never readable by another origin. (docs/decisions.md: "Dashboard sign-in".) A person who
// signs in with an identity provider has no token here at all: the service keeps their session
// and the browser an HttpOnly cookie that no script can read.
const TOKEN_KEY = 'openmq.token';
const ORG_KEY = 'openmq.org';
const ROLE_KEY = 'openmq.role';
const NAME_KEY = 'openmq.name';

export type TokenRole = 'read' | 'write' | 'admin';

export interface StoredSession {
  token: string;
  org: string;
  /** What the token may do: the dashboard shows controls only to tokens allowed to use them. */
  role: TokenRole;
  /** The token's name, shown in the header. */
  name: string;
}

export const isRole = (v: unknown): v is TokenRole => v === 'read' || v === 'write' || v === 'admin';

export function readToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function readSession(): StoredSession | null {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const org = sessionStorage.getItem(ORG_KEY);
  const role = sessionStorage.getItem(ROLE_KEY);
  // A session stored before roles were kept is asked again (signing in reads the role).
  return token && org && isRole(role) ? { token, org, role, name: sessionStorage.getItem(NAME_KEY) ?? '' } : null;
}

export function writeSession(s: StoredSession): void {
  sessionStorage.setItem(TOKEN_KEY, s.token);
  sessionStorage.setItem(ORG_KEY, s.org);
  sessionStorage.setItem(ROLE_KEY, s.role);
  sessionStorage.setItem(NAME_KEY, s.name);
}

export function clearSession(): void {
  for (const key of [TOKEN_KEY, ORG_KEY, ROLE_KEY, NAME_KEY]) sessionStorage.removeItem(key);
}
