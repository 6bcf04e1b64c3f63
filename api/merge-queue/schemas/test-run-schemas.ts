// Request schemas of setCommitStatus and getMergeQueueTestingDetails.
import { STATUS_STATES, type StatusState } from '../../../shared/merge-queue/domain/model.js';
import { type RepoRef } from '../../../shared/repo-ref.js';
import { branchSchema, repoSchema, MAX_NAME } from '../../validation/common.js';
import { compileValidator } from '../../validation/validator.js';

export interface SetCommitStatusBody {
  repo: RepoRef;
  sha: string;
  context: string;
  state: StatusState;
  targetUrl?: string;
  description?: string;
}

export const parseSetCommitStatus = compileValidator<SetCommitStatusBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'sha', 'context', 'state'],
  properties: {
    repo: repoSchema,
    sha: { type: 'string', pattern: '^[0-9a-fA-F]{40}([0-9a-fA-F]{24})?$' },
    context: { type: 'string', minLength: 1, maxLength: MAX_NAME },
    state: { type: 'string', maxLength: 32, caseInsensitiveEnum: [...STATUS_STATES] },
    targetUrl: { type: 'string', maxLength: 2048 },
    description: { type: 'string', maxLength: 1024 },
  },
});

export interface TestingDetailsBody {
  repo: RepoRef;
  targetBranch: string;
  testRunId: string;
}

export const parseTestingDetails = compileValidator<TestingDetailsBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'targetBranch', 'testRunId'],
  properties: {
    repo: repoSchema,
    targetBranch: branchSchema,
    testRunId: { type: 'string', minLength: 1, maxLength: 128 },
  },
});
