// Request schemas of setCommitStatus and getMergeQueueTestingDetails.
import Type, { type Static } from 'typebox';
import { STATUS_STATES } from '../../../shared/merge-queue/domain/model.js';
import { branchSchema, caseInsensitiveEnum, repoSchema, MAX_NAME } from '../../validation/common.js';
import { compileValidator } from '../../validation/validator.js';

export const SetCommitStatusSchema = Type.Object(
  {
    repo: repoSchema,
    sha: Type.String({ pattern: '^[0-9a-fA-F]{40}([0-9a-fA-F]{24})?$' }),
    context: Type.String({ minLength: 1, maxLength: MAX_NAME }),
    state: caseInsensitiveEnum(STATUS_STATES, 32),
    targetUrl: Type.Optional(
      Type.String({ maxLength: 2048, format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', description: 'An http(s) link to the CI run' }),
    ),
    description: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
);
export type SetCommitStatusBody = Static<typeof SetCommitStatusSchema>;

export const parseSetCommitStatus = compileValidator(SetCommitStatusSchema);

export const TestingDetailsSchema = Type.Object(
  { repo: repoSchema, targetBranch: branchSchema, testRunId: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);
export type TestingDetailsBody = Static<typeof TestingDetailsSchema>;

export const parseTestingDetails = compileValidator(TestingDetailsSchema);
