// Query of GET /v1/getMergeQueueMetrics: `repo=owner/name` with `repoHost`, or neither (every
// repository of the organisation). Query values are strings already, so the body validator
// (no type coercion) serves; a repeated parameter arrives as an array and is a 400.
import Type from 'typebox';
import { compileValidator } from '../../validation/validator.js';
import { MAX_NAME, REPO_NAME_PATTERN, REPO_OWNER_PATTERN, repoHostSchema } from '../../validation/common.js';
import { invalid } from '../../../shared/platform/errors.js';
import type { RepoRef } from '../../../shared/platform/repo-ref.js';

export const MetricsQuerySchema = Type.Object(
  {
    repo: Type.Optional(Type.String({ minLength: 3, maxLength: 2 * MAX_NAME + 1, pattern: `^${REPO_OWNER_PATTERN}/${REPO_NAME_PATTERN}$` })),
    repoHost: Type.Optional(repoHostSchema),
  },
  { additionalProperties: false },
);

const validateQuery = compileValidator(MetricsQuerySchema);

/** The repository asked for, or null for every repository of the organisation. */
export function parseMetricsQuery(query: unknown): RepoRef | null {
  const q = validateQuery({ ...(query as object) });
  if (q.repo === undefined && q.repoHost === undefined) return null;
  if (q.repo === undefined)
    throw invalid('invalid_request', 'repoHost needs repo (owner/name)', [{ path: '/repo', message: 'is required when repoHost is given' }]);
  if (q.repoHost === undefined)
    throw invalid('invalid_request', 'repo needs repoHost (e.g. github.com)', [{ path: '/repoHost', message: 'is required when repo is given' }]);
  // Owners may contain slashes (nested groups); the name is the last segment.
  const cut = q.repo.lastIndexOf('/');
  return { host: q.repoHost, owner: q.repo.slice(0, cut), name: q.repo.slice(cut + 1) };
}
