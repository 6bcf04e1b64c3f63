// Where a sign-in lands: a path of this service's own dashboard, never another site. Anything
// else (`//evil.example`, `https://…`, `/\evil`, control characters) lands on the home page.
export const HOME = '/';

export function safeNextPath(next: string | null | undefined): string {
  if (!next || next.length > 2048) return HOME;
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return HOME;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(next)) return HOME;
  if (next.startsWith('/auth/') || next.startsWith('/v1/')) return HOME;
  return next;
}
