// The verdicts' vocabulary (docs/verdicts.md): whose fault a failure was. Kept apart from the rules
// that decide it (verdict.ts), so what only counts verdicts — objectives, digests — does not
// depend on the model the rules read.
export const VERDICT_KINDS = ['yours', 'flaky', 'target_branch', 'infrastructure', 'interaction', 'unknown'] as const;
export type VerdictKind = (typeof VERDICT_KINDS)[number];
