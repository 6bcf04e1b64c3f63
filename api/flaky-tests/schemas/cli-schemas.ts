// Requests of the hosted CLI's internal endpoints (notes §1.5, §2.1). camelCase, and unknown
// fields are tolerated: CLI versions add fields, and a rejected request would make a CI step fail
// or lose its quarantine. Every field we read is still type- and length-checked.
import type { RepoRef } from '../../../shared/repo-ref.js';
import { MAX_NAME, repoSchema } from '../../validation/common.js';
import { compileValidator } from '../../validation/validator.js';

export interface CreateBundleUploadBody {
  repo: RepoRef;
  orgUrlSlug: string;
  clientVersion?: string;
}

const cliRepo = { ...repoSchema, additionalProperties: true };

export const parseCreateBundleUpload = compileValidator<CreateBundleUploadBody>({
  type: 'object',
  additionalProperties: true,
  required: ['repo', 'orgUrlSlug'],
  properties: {
    repo: cliRepo,
    orgUrlSlug: { type: 'string', minLength: 1, maxLength: MAX_NAME },
    clientVersion: { type: 'string', maxLength: 1024 },
    remoteUrls: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 2048 } },
  },
});

export interface GetQuarantineConfigBody {
  repo: RepoRef;
  orgUrlSlug: string;
}

export const parseGetQuarantineConfig = compileValidator<GetQuarantineConfigBody>({
  type: 'object',
  additionalProperties: true,
  required: ['repo', 'orgUrlSlug'],
  properties: {
    repo: cliRepo,
    orgUrlSlug: { type: 'string', minLength: 1, maxLength: MAX_NAME },
    remoteUrls: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 2048 } },
    testIdentifiers: { type: 'array', maxItems: 1_000_000, items: { type: 'object' } },
  },
});
