// Priorities (merge-queue-behaviour §1.12): 0–255, lower goes first; four names.
import { DEFAULT_PRIORITY, MAX_PRIORITY_VALUE, PRIORITY_NAMES, PRIORITY_VALUES, type PriorityName } from './model.js';

export interface ResolvedPriority {
  value: number;
  /** The name reported for the value (see nameForValue). */
  name: string;
  /** The name the request used, or the default when none was given. */
  usedDefaultPriorityName: string;
}

export type PriorityInput = number | string | null | undefined;

export type PriorityResult = { ok: true; priority: ResolvedPriority } | { ok: false; message: string };

/**
 * Resolves the `priority` of submitPullRequest: a number 0–255, one of the names (any letter
 * case), or null/absent for the default (`medium`).
 */
export function resolvePriority(input: PriorityInput): PriorityResult {
  if (input === null || input === undefined) {
    return { ok: true, priority: { value: PRIORITY_VALUES[DEFAULT_PRIORITY], name: DEFAULT_PRIORITY, usedDefaultPriorityName: DEFAULT_PRIORITY } };
  }
  if (typeof input === 'number') {
    if (!Number.isInteger(input) || input < 0 || input > MAX_PRIORITY_VALUE) {
      return { ok: false, message: `priority must be a whole number from 0 to ${MAX_PRIORITY_VALUE} or one of ${PRIORITY_NAMES.join(', ')}` };
    }
    return { ok: true, priority: { value: input, name: nameForValue(input), usedDefaultPriorityName: DEFAULT_PRIORITY } };
  }
  const name = input.trim().toLowerCase();
  if (!(PRIORITY_NAMES as readonly string[]).includes(name)) {
    return { ok: false, message: `priority must be one of ${PRIORITY_NAMES.join(', ')} or a whole number from 0 to ${MAX_PRIORITY_VALUE}` };
  }
  const level = name as PriorityName;
  return { ok: true, priority: { value: PRIORITY_VALUES[level], name: level, usedDefaultPriorityName: level } };
}

/**
 * The name reported for a numeric priority: the band it falls in, 0 → urgent, 1–10 → high,
 * 11–100 → medium, 101–255 → low (a value is never reported as more urgent than it is).
 */
export function nameForValue(value: number): PriorityName {
  const ordered = [...PRIORITY_NAMES].sort((a, b) => PRIORITY_VALUES[a] - PRIORITY_VALUES[b]);
  for (const level of ordered) {
    if (value <= PRIORITY_VALUES[level]) return level;
  }
  return 'low';
}

/**
 * The urgent band: it skips the line, preempts running tests of lower priority and is never
 * batched or held back, so only admins may submit it (shared/accounts/policy.ts).
 */
export function isUrgentPriority(value: number): boolean {
  return nameForValue(value) === 'urgent';
}
