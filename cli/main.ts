// `openmq`: the merge queue from a terminal or a script, as a client of the public API only.
// Exit codes: 0 done, 1 failed, 2 usage, 3 not found, 4 not allowed (cli-error.ts).
import { Command, CommanderError } from 'commander';
import { CliError, EXIT } from './cli-error.js';
import { registerPullRequestCommands, registerVerifyCommand } from './commands/pull-request-commands.js';
import { registerQueueCommands } from './commands/queue-commands.js';
import { registerTestCommands } from './commands/test-commands.js';
import { registerWebhookCommands } from './commands/webhook-commands.js';
import { registerTokenCommands } from './commands/token-commands.js';
import { registerSimulateCommand } from './commands/simulate-command.js';
import { registerLoginCommands } from './commands/login-commands.js';

function buildProgram(): Command {
  const program = new Command('openmq')
    .description('the openmq merge queue and flaky-test service, from the command line')
    .option('--url <url>', 'the service base URL, without /v1 (OPENMQ_URL)')
    .option('--token <token>', 'an API token; prefer OPENMQ_TOKEN, which the process list does not show')
    .option('--repo <host/owner/name>', 'the repository (OPENMQ_REPO)')
    .option('--branch <branch>', 'the target branch of the queue (OPENMQ_BRANCH, default main)')
    .option('--org <slug>', "the organisation of the flaky-tests API (OPENMQ_ORG; default: the token's own)")
    .option('--json', 'print the API answer as JSON')
    .option('--api <version>', 'v2 (default) or v1: the API that submit, cancel and restart use (OPENMQ_API)')
    .showHelpAfterError()
    .exitOverride();
  registerPullRequestCommands(program);
  registerVerifyCommand(program);
  registerQueueCommands(program);
  registerTestCommands(program);
  registerWebhookCommands(program);
  registerTokenCommands(program);
  registerSimulateCommand(program);
  registerLoginCommands(program);
  // Subcommands report their own usage errors through the same exit path.
  const exitOverride = (command: Command) => {
    command.exitOverride();
    command.commands.forEach(exitOverride);
  };
  exitOverride(program);
  return program;
}

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Help and --version exit 0; every other commander error is a usage error (already printed).
    process.exitCode = err.exitCode === 0 ? EXIT.done : EXIT.usage;
  } else if (err instanceof CliError) {
    process.stderr.write(`openmq: ${err.message}\n`);
    process.exitCode = err.exitCode;
  } else {
    process.stderr.write(`openmq: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = EXIT.failed;
  }
}
