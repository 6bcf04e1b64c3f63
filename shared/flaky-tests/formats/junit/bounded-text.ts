// Text collected from a stream with a hard cap, so one 500 MB <system-out> costs at most the cap.

/** A character budget shared by several fields (e.g. every text of one testcase). */
export interface TextBudget {
  remaining: number;
}

/** Index at or before `end` that does not split a UTF-16 surrogate pair. */
export function safeCut(s: string, end: number): number {
  if (end <= 0) return 0;
  if (end >= s.length) return s.length;
  const code = s.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/** Cuts a string to `max` characters (surrogate-safe); reports whether it cut. */
export function truncate(s: string, max: number): { value: string; truncated: boolean } {
  if (s.length <= max) return { value: s, truncated: false };
  return { value: s.slice(0, safeCut(s, max)), truncated: true };
}

export class BoundedText {
  private readonly parts: string[] = [];
  private length = 0;
  private seen = false;
  truncated = false;

  constructor(
    private readonly cap: number,
    private readonly budget: TextBudget,
  ) {}

  append(chunk: string): void {
    this.seen = true;
    if (this.truncated || chunk.length === 0) return;
    const room = Math.min(this.cap - this.length, this.budget.remaining);
    if (chunk.length <= room) {
      this.parts.push(chunk);
      this.length += chunk.length;
      this.budget.remaining -= chunk.length;
      return;
    }
    const keep = safeCut(chunk, Math.max(0, room));
    if (keep > 0) this.parts.push(chunk.slice(0, keep));
    this.length += keep;
    this.budget.remaining -= keep;
    this.truncated = true;
  }

  /** The collected text, surrounding whitespace trimmed (as the CLI does); null when blank. */
  value(): string | null {
    if (!this.seen) return null;
    const joined = this.parts.length === 1 ? this.parts[0]! : this.parts.join('');
    const trimmed = joined.trim();
    return trimmed === '' ? null : trimmed;
  }
}
