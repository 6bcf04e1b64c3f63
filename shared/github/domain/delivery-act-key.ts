// What a GitHub delivery asks for, as a key that is the same however often its body is sent: a
// captured body replayed under a fresh X-GitHub-Delivery (which the signature does not cover)
// carries the same key and is dropped. Only deliveries that act have one: a comment command, a
// label, a push, a CI result. The others (a pull request opened or synchronised, an installation
// change) only make the service read GitHub again, which a replay cannot abuse.
// Commands are also refused when their signed time is older than COMMAND_MAX_AGE_MS, so a body
// replayed after its record expired (RETENTION_DAYS) still does nothing.

/** GitHub redelivers by hand up to three days back; a command older than that is a replay. */
export const COMMAND_MAX_AGE_MS = 3 * 86_400_000;

type Payload = Record<string, unknown>;

const field = (value: unknown, ...path: string[]): unknown => {
  let at = value;
  for (const key of path) at = at !== null && typeof at === 'object' ? (at as Payload)[key] : undefined;
  return at;
};

const scalar = (value: unknown): string | null => (typeof value === 'string' || typeof value === 'number' ? String(value) : null);

/** The key of what `payload` asks for, or null when it asks for nothing that must happen once. */
export function actKeyOf(event: string, payload: Payload): string | null {
  const parts = (...values: unknown[]): string | null => {
    const texts = values.map(scalar);
    return texts.every((t) => t !== null) ? [event, ...texts].join(':') : null;
  };
  const action = payload.action;
  switch (event) {
    case 'issue_comment':
      return parts(field(payload, 'comment', 'id'), action);
    case 'pull_request':
      // A label has no id of its own: the pull request's update time tells a new labelling apart.
      if (action !== 'labeled' && action !== 'unlabeled') return null;
      return parts(
        field(payload, 'repository', 'id'),
        field(payload, 'pull_request', 'number'),
        action,
        String(field(payload, 'label', 'name')).toLowerCase(),
        field(payload, 'pull_request', 'updated_at'),
      );
    case 'push':
      return parts(field(payload, 'repository', 'id'), payload.ref, payload.before, payload.after);
    case 'status':
      return parts(payload.id);
    case 'check_run':
      return parts(field(payload, 'check_run', 'id'), action, field(payload, 'check_run', 'status'), field(payload, 'check_run', 'conclusion') ?? 'none');
    default:
      return null;
  }
}

/** When a command's event happened, by its signed body; null when the body does not say. */
export function commandTimeOf(event: string, payload: Payload): Date | null {
  const text =
    event === 'issue_comment' ? field(payload, 'comment', 'created_at') : event === 'pull_request' ? field(payload, 'pull_request', 'updated_at') : null;
  if (typeof text !== 'string') return null;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? null : at;
}
