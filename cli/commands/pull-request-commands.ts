// submit, cancel, restart and status of one pull request in the queue of --repo/--branch, and
// verify: whether a target branch commit's exact tree was tested. submit, cancel and restart use
// the v2 API unless --api v1 says otherwise; status reads v1, whose answer has the position, the
// estimated time to merge and the verdict that v2 has no field for.
import type { Command } from 'commander';
import { contextOf, prNumber } from '../command-context.js';
import { fields, table } from '../output.js';
import { EXIT } from '../cli-error.js';

const minutes = (seconds: number | undefined) => (seconds === undefined ? undefined : `${Math.round(seconds / 60)} min`);

export function registerPullRequestCommands(program: Command): void {
  program
    .command('submit <pr>')
    .description('submit a pull request to the queue')
    .option('--priority <priority>', 'urgent, high, medium, low or 0–255 (urgent needs an admin token)')
    .option('--no-batch', 'test it on its own, never in a batch')
    .action(async (pr: string, opts: { priority?: string; batch: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const n = prNumber(pr);
      const numeric = opts.priority !== undefined && /^\d+$/.test(opts.priority);
      if (ctx.v2) {
        const { repo, targetBranch } = ctx.queue();
        const body = {
          number: n,
          ...(opts.priority === undefined ? {} : numeric ? { priorityValue: Number(opts.priority) } : { priorityName: opts.priority.toLowerCase() }),
          ...(opts.batch ? {} : { allowBatching: false }),
        };
        const answer = await ctx.v2.submit(await ctx.v2.queueId(repo, targetBranch), body);
        ctx.out.result(answer, () => `submitted #${n} (${answer.queueEntry?.state ?? 'queued'})`);
        return;
      }
      const priority = opts.priority === undefined ? {} : { priority: numeric ? Number(opts.priority) : opts.priority };
      const answer = await ctx.api.call('submitPullRequest', { ...ctx.queue(), pr: { number: n }, ...priority, ...(opts.batch ? {} : { noBatch: true }) });
      ctx.out.result(answer, () => `submitted #${n}`);
    });

  for (const [name, operation, verb] of [
    ['cancel', 'cancelPullRequest', 'cancelled'],
    ['restart', 'restartTestsOnPullRequest', 'restarted the tests of'],
  ] as const) {
    program
      .command(`${name} <pr>`)
      .description(`${name === 'cancel' ? 'cancel a submitted pull request' : 'restart the tests of a pull request under test'}`)
      .action(async (pr: string, _opts: unknown, command: Command) => {
        const ctx = contextOf(command);
        const n = prNumber(pr);
        if (ctx.v2) {
          const id = await ctx.v2.pullRequestId(ctx.repo(), n);
          const answer = name === 'cancel' ? await ctx.v2.dequeue(id) : await ctx.v2.restartTests(id);
          ctx.out.result(answer, () => `${verb} #${n}`);
          return;
        }
        const answer = await ctx.api.call(operation, { ...ctx.queue(), pr: { number: n } });
        ctx.out.result(answer, () => `${verb} #${n}`);
      });
  }

  program
    .command('status <pr>')
    .description('state, position, reason and estimated time to merge of a pull request')
    .option('--timeline', 'also every transition, newest first')
    .action(async (pr: string, opts: { timeline?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const body = { ...ctx.queue(), pr: { number: prNumber(pr) }, includeTimeline: true, includeEstimatedTimeToMerge: true };
      const s = await ctx.api.call('getSubmittedPullRequest', body);
      const latest = s.timeline?.[0];
      const json = opts.timeline ? s : (({ timeline: _t, ...rest }) => rest)(s);
      ctx.out.result(json, () => {
        const range = s.estimatedTimeToMergeRange;
        const summary = fields([
          ['pull request', `#${s.prNumber} ${s.prTitle}`],
          ['author', s.prAuthor],
          ['state', s.state],
          ['since', s.stateChangedAt],
          ['reason', latest ? `${latest.reason}${latest.detail ? ` — ${latest.detail}` : ''}` : undefined],
          [
            'stack',
            s.stack ? `${s.stack.position} of ${s.stack.size}${s.stack.belowPrNumber === null ? ', the bottom' : `, on #${s.stack.belowPrNumber}`}` : undefined,
          ],
          ['verdict', s.verdict ? verdictLine(s.verdict) : undefined],
          ['window', s.waitingForMergeWindow ? `waits for a merge window: ${s.waitingForMergeWindow.detail}` : undefined],
          ['priority', s.priorityName],
          ['position', s.position],
          ['eta', range ? `${minutes(s.estimatedTimeToMerge)} (${minutes(range.low)}–${minutes(range.high)})` : minutes(s.estimatedTimeToMerge)],
          ['restarts', s.restartCount],
        ]);
        if (!opts.timeline) return summary;
        const rows = (s.timeline ?? []).map((t) => [t.timestamp, t.state, t.reason, t.detail]);
        return `${summary}\n\n${table(['time', 'state', 'reason', 'detail'], rows)}`;
      });
    });
}

/** Exit status 0 when the commit's exact tree was tested, 1 when not: `openmq verify "$SHA" && skip the post-merge suite`. */
export function registerVerifyCommand(program: Command): void {
  program
    .command('verify <sha>')
    .description("whether the queue tested a target branch commit's exact tree (exit 0) or not (exit 1), by which run, with which required statuses")
    .action(async (sha: string, _opts: unknown, command: Command) => {
      const ctx = contextOf(command);
      const v = await ctx.api.call('verifyCommit', { repo: ctx.repo(), sha });
      ctx.out.result(v, () =>
        fields([
          ['commit', v.sha],
          ['tested', v.tested ? 'yes' : 'no'],
          ['why', v.detail],
          ['branch', v.targetBranch ?? undefined],
          ['pull request', v.prNumber === null ? undefined : `#${v.prNumber}`],
          ['test run', v.testRun ? `${v.testRun.id}${v.testRun.tree ? ` (tree ${v.testRun.tree.slice(0, 12)})` : ''}` : undefined],
          ['required', v.testRun ? v.testRun.requiredStatuses.map((s) => `${s.context}: ${s.state ?? 'not reported'}`).join(', ') || 'none' : undefined],
        ]),
      );
      if (!v.tested) process.exitCode = EXIT.failed;
    });
}

/** `yours — checkout_total failed here and passed on main at 1a2b3c4d5e6f (rule passes_on_target)`, plus what would decide an unknown. */
function verdictLine(v: { kind: string; rule: string; summary: string; missing?: string }): string {
  const kind =
    v.kind === 'yours' || v.kind === 'unknown'
      ? v.kind
      : v.kind === 'interaction'
        ? 'not yours alone (interaction)'
        : `not yours (${v.kind.replaceAll('_', ' ')})`;
  return `${kind} — ${v.summary} (rule ${v.rule})${v.missing ? `; would decide it: ${v.missing}` : ''}`;
}
