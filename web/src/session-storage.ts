// The API token lives in the tab's session storage: gone when the tab closes, never sent in a
// URL, never readable by another origin. (docs/decisions.md: "Dashboard sign-in".)
const TOKEN_KEY = 'openmq.token';
const ORG_KEY = 'openmq.org';

export interface StoredSession {
  token: string;
  org: string;
}

export function readToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function readSession(): StoredSession | null {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const org = sessionStorage.getItem(ORG_KEY);
  return token && org ? { token, org } : null;
}

export function writeSession(s: StoredSession): void {
  sessionStorage.setItem(TOKEN_KEY, s.token);
  sessionStorage.setItem(ORG_KEY, s.org);
}

export function clearSession(): void {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(ORG_KEY);
}
