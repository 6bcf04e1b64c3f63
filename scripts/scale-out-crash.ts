// A scale-out run that survives a crash: a simulated team's pull requests through the service
// while part of it is killed with SIGKILL, then the checks that nothing merged twice, nothing merged
// untested and nothing was lost (scripts/lib/scale-out-crash.ts, scale-out-invariants.ts).
//
//   npx tsx scripts/scale-out-crash.ts --processes --workers 3   # API + 3 workers on MONGO_URL and REDIS_URL; one worker killed
//   npx tsx scripts/scale-out-crash.ts --embedded                # the all-in-one process on the embedded store, killed and restarted
//
// The GitHub Actions workflow's scale-out job runs the first; the test suite runs the second.
// Exit 0 when every invariant holds, 1 when one does not, 2 on a bad command line.
import { UsageError } from './lib/scale-out-options.js';
import { parseCrashArgs, runCrash, type CrashRunOptions } from './lib/scale-out-crash.js';
import { invariantsHold } from './lib/scale-out-invariants.js';
import { machineSummary } from './lib/bench-stats.js';

let opts: CrashRunOptions;
try {
  opts = parseCrashArgs(process.argv.slice(2));
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  console.error(err.message);
  process.exit(2);
}
const started = performance.now();
const result = await runCrash(opts, (line) => console.error(line));
const v = result.invariants;
console.log(`${machineSummary()}; ${opts.target}; ${Math.round((performance.now() - started) / 1000)} s`);
console.log(`killed: ${result.killed}, after ${result.interruptedAt ?? 'never'} of ${result.pullRequests} merged`);
console.log(
  `merged ${result.merged}/${result.pullRequests} in ${result.seconds.toFixed(0)} s; ${result.testRuns} test runs passed; ${v.branchUpdates} updates of main; ${result.callsRetried} calls retried`,
);
console.log(`merged twice: ${v.mergedTwice.join(', ') || 'none'}`);
console.log(`merged untested: ${v.untested.join('; ') || 'none'}`);
console.log(`not merged: ${v.notMerged.join(', ') || 'none'}`);
console.log(`state not as merged: ${v.wrongState.join(', ') || 'none'}`);
process.exitCode = invariantsHold(v) && result.interruptedAt !== null ? 0 : 1;
