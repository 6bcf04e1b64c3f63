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
//
// With redundant tests skipped and more than one bisection run allowed at once (`ways`), the
// failing span is cut at up to `ways` evenly spaced points instead of one, and the probes, each
// the next slice on top of the ones before it, run side by side: a round narrows the span to a
// (ways + 1)th rather than a half, so a batch of 8 is searched in two rounds of CI instead of
// three, for a few more runs (docs/decisions.md, "Bisection uses its whole pool"). While probes
// of a round still run, the round is not cut afresh: the running ones that still split the span
// are kept and waited for, so a result arriving early never cancels its siblings.
//
// The interaction check (issue 26, docs/verdicts.md#interactions): a culprit C[p] with members
// below it failed only on top of them. Before it is condemned it becomes a suspect and is tested
// alone on the batch's own base (the target sha the batch was built on, not the head its proven
// members have since moved). Failing alone, it is the culprit. Passing alone, the failure that
// blamed it is re-tested on that base: passing now, it was a flake, and C[p] is cleared (the
// caller ends the bisection: members after it were searched without it). Failing again, it needs
// a member below it: with S = C[0..p), the shortest k for which S[0..k) + C[p] fails names
// S[k-1], found by halving between the longest passing k (0: alone) and the shortest failing one.
// A suspect leaves the candidates at once, so the search and the queue go on without waiting for
// its check.
import type { Reason } from '../model.js';

export interface ProbeResult {
  runId: string;
  /** The batch members the run held (base then tested), in order. */
  chain: readonly string[];
  passed: boolean;
  /** Reason a culprit condemned by this (failed) run fails with. */
  failureReason: Reason;
  /** For a run of an interaction check: the suspect it checks (its chain is then no prefix of the batch). */
  interactionOf?: string | null;
  /** A check's run whose branch could not be built (the suspect does not apply without the members below it). */
  unbuildable?: boolean;
}

export interface Probe {
  /** Members to test, in order. */
  tested: string[];
  /** Members below them on the batch's base, in order (a proven or assumed-good prefix). */
  base: string[];
  /**
   * For an interaction check: the suspect. Such a probe is built on the batch's own target sha
   * with exactly `base` (merged members included) below the suspect.
   */
  interactionOf?: string;
}

/** What an interaction check established: the culprit passes alone and fails on top of `withEntryId`. */
export interface Interaction {
  withEntryId: string;
  /** The run of the culprit alone that passed. */
  aloneRunId: string;
}

export interface Culprit {
  entryId: string;
  /** The failed run that condemns it (for an interaction: the one with the sibling below it). */
  runId: string;
  reason: Reason;
  /** Set when the interaction check found it passes alone. */
  interaction?: Interaction;
}

/** A suspect whose blame did not hold: the failure that blamed it passed when re-tested (`runId`). */
export interface Cleared {
  entryId: string;
  runId: string;
  below: string[];
}

/** A culprit whose interaction check is still under way. */
export interface Suspect {
  entryId: string;
  /** The run that blamed it, and the members below it there, in order. */
  blamedBy: string;
  below: string[];
  /** The check's next run. */
  probe: Probe;
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
  /** Culprits whose interaction check goes on (no longer candidates). */
  suspects: Suspect[];
  /** Suspects the check cleared (no longer candidates: they leave the bisection). */
  cleared: Cleared[];
  /** Runs still to be made (or still running) to progress, the checks' last; empty when the search is over. */
  probes: Probe[];
}

export interface SearchOptions {
  skipRedundant: boolean;
  /** Probes a round may run side by side (the bisection pool); 1, the default, is a binary search. */
  ways?: number;
  /** Members held by bisection runs still running (prefix searches only), each in batch order. */
  running?: readonly (readonly string[])[];
  /** Whether a culprit blamed on top of other members is checked for an interaction before it is condemned. */
  checkInteraction: (suspect: string) => boolean;
}

export function searchCulprits(
  members: readonly string[],
  removed: ReadonlySet<string>,
  allResults: readonly ProbeResult[],
  options: SearchOptions,
): BisectionState {
  let c = members.filter((id) => !removed.has(id));
  const results = allResults.filter((r) => !r.interactionOf);
  const culprits: Culprit[] = [];
  const suspects: Suspect[] = [];
  const cleared: Cleared[] = [];
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
      const suspect = c[proven]!;
      const below = failing.chain.slice(0, -1);
      const check = below.length > 0 && options.checkInteraction(suspect) ? checkInteraction(suspect, below, failing, allResults) : null;
      if (check && 'probe' in check) suspects.push({ entryId: suspect, blamedBy: failing.runId, below, probe: check.probe });
      else if (check && 'clearedBy' in check) cleared.push({ entryId: suspect, runId: check.clearedBy, below });
      else culprits.push(check ?? { entryId: suspect, runId: failing.runId, reason: failing.failureReason });
      c = c.filter((_, i) => i !== proven);
      continue;
    }
    const failingLength = failing?.chain.length ?? null;
    const probes =
      options.skipRedundant && failingLength !== null && (options.ways ?? 1) > 1
        ? roundProbes(c, proven, failingLength, options.ways ?? 1, options.running ?? [])
        : nextProbes(c, proven, failingLength, options.skipRedundant);
    return { candidates: c, culprits, suspects, cleared, proven, proofRunId, probes: [...probes, ...suspects.map((s) => s.probe)] };
  }
}

/**
 * The interaction check of `suspect`, blamed by `blamedBy` on top of `below`: the culprit it
 * turned out to be, the run that cleared it, or the check's next probe. Only the check's own runs
 * (built on the batch's base) decide; the run that blamed it stands only when they cannot.
 */
function checkInteraction(
  suspect: string,
  below: readonly string[],
  blamedBy: ProbeResult,
  results: readonly ProbeResult[],
): Culprit | { probe: Probe } | { clearedBy: string } {
  const own = results.filter((r) => r.interactionOf === suspect);
  // A suspect that does not even apply without the members below it depends on them, and a check
  // run that timed out tells nothing: the blame stands.
  if (own.some((r) => r.unbuildable || (!r.passed && r.failureReason === 'test_run_timeout'))) {
    return { entryId: suspect, runId: blamedBy.runId, reason: blamedBy.failureReason };
  }
  const outcomeWith = (k: number): ProbeResult | undefined => {
    const chain = [...below.slice(0, k), suspect];
    // A pass wins over a failure of the same chain (a flake), as in the prefix search.
    const same = own.filter((r) => sameChain(r.chain, chain));
    return same.find((r) => r.passed) ?? same[0];
  };
  const alone = outcomeWith(0);
  if (!alone) return { probe: { tested: [suspect], base: [], interactionOf: suspect } };
  if (!alone.passed) return { entryId: suspect, runId: alone.runId, reason: alone.failureReason };
  // Only the check's own runs count from here: the failure that blamed it is re-tested first.
  const again = outcomeWith(below.length);
  if (again?.passed) return { clearedBy: again.runId };
  let passing = 0;
  for (let k = 1; k < below.length; k++) if (outcomeWith(k)?.passed) passing = k;
  let failing: { k: number; run: ProbeResult } | null = null;
  for (let k = below.length; k > passing; k--) {
    const r = outcomeWith(k);
    if (r && !r.passed) failing = { k, run: r };
  }
  if (!failing) return { probe: { tested: [suspect], base: [...below], interactionOf: suspect } };
  if (failing.k === passing + 1) {
    return {
      entryId: suspect,
      runId: failing.run.runId,
      reason: failing.run.failureReason,
      interaction: { withEntryId: below[failing.k - 1]!, aloneRunId: alone.runId },
    };
  }
  const mid = Math.floor((passing + failing.k) / 2);
  return { probe: { tested: [suspect], base: below.slice(0, mid), interactionOf: suspect } };
}

function sameChain(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

function nextProbes(c: string[], proven: number, failingLength: number | null, skipRedundant: boolean): Probe[] {
  if (proven >= c.length) return [];
  if (failingLength === null) return [{ tested: c.slice(proven), base: c.slice(0, proven) }];
  const mid = proven + Math.ceil((failingLength - proven) / 2);
  const probes: Probe[] = [{ tested: c.slice(proven, mid), base: c.slice(0, proven) }];
  if (!skipRedundant) probes.push({ tested: c.slice(mid, failingLength), base: c.slice(0, mid) });
  return probes;
}

/**
 * A round of side-by-side probes over the failing span (proven, failingLength): the cuts of the
 * round still running when there are any, else up to `ways` evenly spaced new ones. Each probe
 * tests the slice from the previous cut on top of everything before it.
 */
function roundProbes(c: string[], proven: number, failingLength: number, ways: number, running: readonly (readonly string[])[]): Probe[] {
  const inSpan = (cut: number): boolean => cut > proven && cut < failingLength;
  const kept = running
    .filter((chain) => isPrefix(chain, c))
    .map((chain) => chain.length)
    .filter(inSpan);
  const cuts = [...new Set(kept.length > 0 ? kept : evenCuts(proven, failingLength, ways).filter(inSpan))].sort((a, b) => a - b);
  let from = proven;
  return cuts.map((cut) => {
    const probe = { tested: c.slice(from, cut), base: c.slice(0, from) };
    from = cut;
    return probe;
  });
}

/** The fewest evenly spaced cuts of the span (proven, failingLength) that search it in as few rounds as `ways` cuts do. */
function evenCuts(proven: number, failingLength: number, ways: number): number[] {
  const span = failingLength - proven;
  const k = fewestWays(span, ways);
  return Array.from({ length: k }, (_, i) => proven + Math.ceil(((i + 1) * span) / (k + 1)));
}

/** Rounds a search over `span` candidates takes cutting `ways` times per round. */
function roundsFor(span: number, ways: number): number {
  let rounds = 0;
  for (let reach = 1; reach < span; reach *= ways + 1) rounds++;
  return rounds;
}

/** The fewest cuts per round that still search `span` candidates in as few rounds as `ways` cuts do (more would only cost runs). */
function fewestWays(span: number, ways: number): number {
  const rounds = roundsFor(span, ways);
  let k = 1;
  while (k < ways && roundsFor(span, k) > rounds) k++;
  return k;
}

function isPrefix(chain: readonly string[], of: readonly string[]): boolean {
  if (chain.length === 0 || chain.length > of.length) return false;
  for (let i = 0; i < chain.length; i++) if (chain[i] !== of[i]) return false;
  return true;
}
