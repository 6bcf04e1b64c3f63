// V8 represents a substring of a long string as a slice that keeps the whole parent alive. The
// JUnit parser's strings are slices of the chunks it read, so holding one (in the per-test
// aggregates of an upload, or in a document the in-memory engine keeps for 45 days) would pin the
// whole chunk — a report's entire text. Strings kept beyond the current batch are copied flat.
export function detach(s: string): string;
export function detach(s: string | null): string | null;
export function detach(s: string | null): string | null {
  if (s === null || s.length < 13) return s; // V8 never slices below 13 characters
  return Buffer.from(s, 'utf8').toString('utf8');
}
