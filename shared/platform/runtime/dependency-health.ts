// Each dependency's reachability, from the checks that /readyz, /v1/status and /healthz run.
// Readiness is what the checks say now. Liveness fails only for a dependency that has been
// unreachable for longer than a bound: a blip must not get the process restarted, but a
// dependency that will not come back must show, so a supervisor restarts the service and an
// operator sees why (docs/operations.md, "Health and readiness").
import type { DependencyCheck } from './service-status.js';
import { withTimeout } from './with-timeout.js';

export interface DependencyHealthOptions {
  /** A dependency unreachable for at least this long is lost: /healthz fails, naming it. */
  lostAfterMs: number;
  /** A check that has not answered by then counts as a failure. */
  checkTimeoutMs: number;
  now?: () => number;
}

export class DependencyHealth {
  private readonly failingSince = new Map<string, { since: number; detail: string }>();
  private round: Promise<DependencyCheck[]> | null = null;
  private readonly now: () => number;

  constructor(
    private readonly checks: Record<string, () => Promise<void>>,
    private readonly options: DependencyHealthOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Runs every check now (callers arriving meanwhile share the round) and records the outcome. Never rejects. */
  check(): Promise<DependencyCheck[]> {
    this.round ??= this.runChecks().finally(() => {
      this.round = null;
    });
    return this.round;
  }

  /** The dependencies unreachable for at least the bound, as of the last round of checks. */
  lost(): DependencyCheck[] {
    const now = this.now();
    return [...this.failingSince]
      .filter(([, f]) => now - f.since >= this.options.lostAfterMs)
      .map(([name, f]) => ({ name, ok: false, detail: `unreachable for ${Math.round((now - f.since) / 1000)} s: ${f.detail}` }));
  }

  private async runChecks(): Promise<DependencyCheck[]> {
    const results = await Promise.all(
      Object.entries(this.checks).map(async ([name, check]): Promise<DependencyCheck> => {
        try {
          await withTimeout(check(), this.options.checkTimeoutMs);
          return { name, ok: true, detail: 'ok' };
        } catch (err) {
          return { name, ok: false, detail: `unavailable: ${err instanceof Error ? err.message : String(err)}` };
        }
      }),
    );
    const now = this.now();
    for (const r of results) {
      if (r.ok) this.failingSince.delete(r.name);
      else this.failingSince.set(r.name, { since: this.failingSince.get(r.name)?.since ?? now, detail: r.detail });
    }
    return results;
  }
}
