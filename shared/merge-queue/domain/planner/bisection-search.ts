// Prefix bisection of a failed batch (merge-queue-behaviour §1.10, §2.2), derived afresh on every
// pass from the results recorded so far, so no search state needs storing.
//
// Every probe tests a prefix of the current candidates C (the batch minus culprits and removed
// entries) on the batch's base: "tested C[i..k) on base + C[0..i)" holds exactly C[0..k). With p
// the longest prefix some run proved and f the shortest longer prefix some run failed, C[p] is a
// culprit when f = p + 1; it leaves C and the search goes on over what remains (a result for a
// list that contained it is no prefix of the new C, so it no longer counts). Otherwise the next
// probe is the first half C[p..m) on base + C[0..p); without bisection_skip_redundant_tests the
// second half C[m..f) on base + C[0..m) is run as well, although its outcome is implied.
import type { Reason } from '../model.js';

export interface ProbeResult {
  runId: string;
  /** The batch members the run held (base then tested), in order. */
  chain: readonly string[];
  passed: boolean;
  /** Reason a culprit condemned by this (failed) run fails with. */
  failureReason: Reason;
}

export interface Probe {
  /** Members to test, in order. */
  tested: string[];
  /** Members below them on the batch's base, in order (a proven or assumed-good prefix). */
  base: string[];
}

export interface Culprit {
  entryId: string;
  runId: string;
  reason: Reason;
}

export interface BisectionState {
  /** The batch minus culprits and removed entries, in order. */
  candidates: string[];
  /** Culprits this derivation found (besides those removed beforehand). */
  culprits: Culprit[];
  /** Length of the longest proven prefix of `candidates`. */
  proven: number;
  /** The run that proved it; null when nothing is proven. */
  proofRunId: string | null;
  /** Runs still to be made (or still running) to progress; empty when the search is over. */
  probes: Probe[];
}

export function searchCulprits(
  members: readonly string[],
  removed: ReadonlySet<string>,
  results: readonly ProbeResult[],
  skipRedundant: boolean,
): BisectionState {
  let c = members.filter((id) => !removed.has(id));
  const culprits: Culprit[] = [];
  for (;;) {
    let proven = 0;
    let proofRunId: string | null = null;
    for (const r of results) {
      if (r.passed && isPrefix(r.chain, c) && r.chain.length > proven) {
        proven = r.chain.length;
        proofRunId = r.runId;
      }
    }
    let failing: ProbeResult | null = null;
    for (const r of results) {
      // A failure of a prefix already proven was a flake: the pass wins.
      if (!r.passed && isPrefix(r.chain, c) && r.chain.length > proven && (failing === null || r.chain.length < failing.chain.length)) {
        failing = r;
      }
    }
    if (failing && failing.chain.length === proven + 1) {
      culprits.push({ entryId: c[proven]!, runId: failing.runId, reason: failing.failureReason });
      c = c.filter((_, i) => i !== proven);
      continue;
    }
    return { candidates: c, culprits, proven, proofRunId, probes: nextProbes(c, proven, failing?.chain.length ?? null, skipRedundant) };
  }
}

function nextProbes(c: string[], proven: number, failingLength: number | null, skipRedundant: boolean): Probe[] {
  if (proven >= c.length) return [];
  if (failingLength === null) return [{ tested: c.slice(proven), base: c.slice(0, proven) }];
  const mid = proven + Math.ceil((failingLength - proven) / 2);
  const probes: Probe[] = [{ tested: c.slice(proven, mid), base: c.slice(0, proven) }];
  if (!skipRedundant) probes.push({ tested: c.slice(mid, failingLength), base: c.slice(0, mid) });
  return probes;
}

function isPrefix(chain: readonly string[], of: readonly string[]): boolean {
  if (chain.length === 0 || chain.length > of.length) return false;
  for (let i = 0; i < chain.length; i++) if (chain[i] !== of[i]) return false;
  return true;
}
