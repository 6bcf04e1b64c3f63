// Readiness of queued pull requests (merge-queue-behaviour §1.6): whether the base is the queue's
// branch, whether the provider merges the head cleanly into the target head, and — in parallel
// mode — whether impacted targets exist for the head, uploaded or computed from the paths it
// changes when the repository maps paths to lanes (docs/lanes.md). A submission answers without asking the
// provider for a merge (a git process, or a fetch from the forge): its entry starts with its
// mergeability `in_progress`, and the next planning pass decides it before it plans.
import type { Entry, Queue, Readiness, ReadinessBasis } from '../domain/model.js';
import { evaluateReadiness } from '../domain/readiness.js';
import type { MergeQueueRepositories } from '../store/store.js';
import type { GitProvider } from './provider.js';
import { PathLanesSource } from './path-lanes-source.js';

export interface ReadinessServiceDeps {
  store: Pick<MergeQueueRepositories, 'entries' | 'impactedTargets'>;
}

/** What readiness is judged on: a pull request as the provider sees it, or as its entry recorded it. */
export interface ReadinessSubject {
  number: number;
  headSha: string;
  /** null when the provider does not know it (the queue's branch is assumed). */
  baseBranch: string | null;
  /** For a stack member, the head branch of the member below it (its expected base). */
  stackBelowHeadBranch?: string | null;
}

export interface JudgedReadiness {
  readiness: Readiness;
  /** The shas and mode it was computed for; null when the target branch does not exist. */
  basis: ReadinessBasis | null;
}

export class ReadinessService {
  private readonly lanes = new PathLanesSource();

  constructor(private readonly deps: ReadinessServiceDeps) {}

  /**
   * Readiness from the provider and the stored targets, with the shas it was computed for (so it
   * is recomputed only when one of them moves). `targetHead` spares reading the target again
   * when the caller judges several pull requests at once.
   */
  async evaluate(queue: Queue, pr: ReadinessSubject, provider: GitProvider, targetHead?: string | null): Promise<JudgedReadiness> {
    const head = targetHead === undefined ? await provider.branchHead(queue.repo, queue.branch) : targetHead;
    const mergeability = head === null ? 'unspecified' : await provider.mergeability(queue.repo, { baseSha: head, headSha: pr.headSha });
    const mode = queue.pendingMode ?? queue.mode;
    const readiness = evaluateReadiness({
      prBaseBranch: pr.baseBranch ?? queue.branch,
      queueBranch: queue.branch,
      stackBelowHeadBranch: pr.stackBelowHeadBranch ?? null,
      mergeability,
      mode,
      // Lanes from paths give every pull request targets (a file no lane covers: `ALL`).
      hasImpactedTargets: (await this.deps.store.impactedTargets.has(queue.id, pr.number, pr.headSha)) || (await this.lanes.of(queue, provider, head)) !== null,
    });
    return { readiness, basis: head === null ? null : { targetSha: head, headSha: pr.headSha, mode } };
  }

  /** Readiness of a new submission before the provider is asked to merge it: mergeability `in_progress`. */
  async undecided(queue: Queue, pr: ReadinessSubject): Promise<Readiness> {
    return evaluateReadiness({
      prBaseBranch: pr.baseBranch ?? queue.branch,
      queueBranch: queue.branch,
      stackBelowHeadBranch: pr.stackBelowHeadBranch ?? null,
      mergeability: 'in_progress',
      mode: queue.pendingMode ?? queue.mode,
      hasImpactedTargets: await this.deps.store.impactedTargets.has(queue.id, pr.number, pr.headSha),
    });
  }

  /**
   * Decides the readiness of the queue's submissions still `in_progress`, reading the target head
   * once for all of them. An entry changed meanwhile (a resubmission) keeps waiting: the change
   * asked for another pass, and the provider poll also judges entries without a basis.
   * Returns how many were decided.
   */
  async decideSubmitted(queue: Queue, provider: GitProvider): Promise<number> {
    const waiting = await this.deps.store.entries.listAwaitingMergeability(queue.id);
    if (waiting.length === 0) return 0;
    const targetHead = await provider.branchHead(queue.repo, queue.branch);
    let decided = 0;
    for (const entry of waiting) {
      const { readiness, basis } = await this.evaluate(queue, subjectOf(entry), provider, targetHead);
      if (await this.deps.store.entries.patch(entry.id, entry.version, { readiness, readinessBasis: basis })) decided++;
    }
    return decided;
  }
}

function subjectOf(entry: Entry): ReadinessSubject {
  return { number: entry.prNumber, headSha: entry.prSha, baseBranch: entry.prBaseBranch, stackBelowHeadBranch: entry.stack?.belowHeadBranch ?? null };
}
