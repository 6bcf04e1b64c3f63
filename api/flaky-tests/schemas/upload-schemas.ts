// The `meta` part of POST /v1/flaky-tests/upload (docs/flaky-tests.md).
import type { RepoRef } from '../../../shared/repo-ref.js';
import { branchSchema, MAX_NAME, prNumberSchema, repoSchema } from '../../validation/common.js';
import { orgSlugSchema } from './common-schemas.js';
import { compileValidator } from '../../validation/validator.js';

export interface UploadMetaBody {
  repo: RepoRef;
  org_url_slug: string;
  commit_sha: string;
  branch: string;
  pr_number?: number | null;
  variant?: string;
  job_name?: string;
  job_url?: string;
  attempt?: number;
  started_at?: string;
}

export const parseUploadMeta = compileValidator<UploadMetaBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'org_url_slug', 'commit_sha', 'branch'],
  properties: {
    repo: repoSchema,
    org_url_slug: orgSlugSchema,
    commit_sha: { type: 'string', pattern: '^[0-9a-fA-F]{7,64}$' },
    branch: branchSchema,
    pr_number: { anyOf: [prNumberSchema, { type: 'null' }] },
    variant: { type: 'string', maxLength: MAX_NAME },
    job_name: { type: 'string', maxLength: MAX_NAME },
    job_url: { type: 'string', maxLength: 2048 },
    attempt: { type: 'integer', minimum: 0, maximum: 4294967295 },
    started_at: { type: 'string', format: 'date-time', maxLength: 64 },
  },
});
