// Webhook payloads start from GitHub's real examples (@octokit/webhooks-examples), with only the
// fields that name this delivery's repository, commit or pull request replaced, so the service
// parses what GitHub actually sends, not a shape written to suit it.
import { createRequire } from 'node:module';

type JsonObject = { [key: string]: unknown };

interface ExampleSet {
  name: string;
  examples: JsonObject[];
}

const require = createRequire(import.meta.url);
const EXAMPLES = require('@octokit/webhooks-examples/api.github.com/index.json') as ExampleSet[];

/** A copy of GitHub's first example of `event` (with `action`, when given). */
export function examplePayload(event: string, action?: string): JsonObject {
  const set = EXAMPLES.find((e) => e.name === event);
  const example = set?.examples.find((x) => action === undefined || x.action === action);
  if (!example) throw new Error(`@octokit/webhooks-examples has no ${event}${action ? `.${action}` : ''} example`);
  return structuredClone(example);
}

/** The example with its repository, installation and top-level fields replaced. */
export function payloadFor(
  event: string,
  action: string | undefined,
  repo: { owner: string; name: string; installationId: number },
  fields: JsonObject,
): JsonObject {
  const example = examplePayload(event, action);
  const repository = (example.repository ?? {}) as JsonObject;
  return {
    ...example,
    ...fields,
    repository: {
      ...repository,
      name: repo.name,
      full_name: `${repo.owner}/${repo.name}`,
      owner: { ...((repository.owner ?? {}) as JsonObject), login: repo.owner },
    },
    installation: { ...((example.installation ?? {}) as JsonObject), id: repo.installationId },
  };
}
