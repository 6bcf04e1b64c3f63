// The `/trunk` commands a pull request comment may carry (commandsEnabled): the first line of the
// comment that starts with `/trunk` is the command; quoted lines (`> /trunk merge`, a reply that
// quotes someone) and lines inside fenced code blocks are text, not commands.
//   /trunk merge                          submit the pull request to its base branch's queue
//   /trunk merge --priority=urgent        … with a priority (a name or 0–255; `--priority urgent` too)
//   /trunk cancel                         take it out of the queue

export type CommentCommand =
  | { kind: 'merge'; priority: string | number | undefined; text: string }
  | { kind: 'cancel'; text: string }
  /** A `/trunk` line that is not a command this service knows: answered with the usage. */
  | { kind: 'unknown'; text: string; problem: string };

export const COMMAND_USAGE = '`/trunk merge`, `/trunk merge --priority=<urgent|high|medium|low|0–255>` or `/trunk cancel`';

const MAX_COMMAND_LENGTH = 200;

/**
 * Text from a comment quoted back in a reply, as a Markdown code span whose fence is longer than
 * any run of backticks inside it: a commenter cannot close the span to make the App post a
 * mention or a link of their choosing.
 */
export function codeSpan(text: string): string {
  const line = text.replace(/[\r\n]+/g, ' ');
  const longest = Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = line.startsWith('`') || line.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${line}${pad}${fence}`;
}

/** The command of a comment, or null when no line of it is a `/trunk` command. */
export function parseCommentCommand(body: string): CommentCommand | null {
  let fenced = false;
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    if (/^(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced || !/^\/trunk(\s|$)/.test(line)) continue;
    const text = line.length > MAX_COMMAND_LENGTH ? `${line.slice(0, MAX_COMMAND_LENGTH)}…` : line;
    return commandOf(line.split(/\s+/).slice(1), text);
  }
  return null;
}

function commandOf(words: string[], text: string): CommentCommand {
  const [verb, ...args] = words;
  if (verb === 'cancel') {
    return args.length === 0 ? { kind: 'cancel', text } : { kind: 'unknown', text, problem: '`/trunk cancel` takes no options' };
  }
  if (verb !== 'merge') {
    return { kind: 'unknown', text, problem: verb === undefined ? 'a command is missing after `/trunk`' : `${codeSpan(verb.slice(0, 40))} is not a command` };
  }
  let priority: string | number | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const inline = /^--priority=(.*)$/.exec(arg);
    const value = inline ? inline[1] : arg === '--priority' ? args[++i] : null;
    if (value === null) return { kind: 'unknown', text, problem: `${codeSpan(arg.slice(0, 40))} is not an option of \`/trunk merge\`` };
    if (!value || priority !== undefined) return { kind: 'unknown', text, problem: '`--priority` takes one value' };
    // A number is a priority value, as in submitPullRequest's JSON; anything else a name.
    priority = /^\d+$/.test(value) ? Number(value) : value;
  }
  return { kind: 'merge', priority, text };
}
