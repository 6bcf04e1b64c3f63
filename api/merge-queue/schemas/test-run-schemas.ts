// Request schemas of setCommitStatus and getMergeQueueTestingDetails, and verifyCommit's request and answer.
import Type, { type Static } from 'typebox';
import { STATUS_STATES } from '../../../shared/merge-queue/domain/model.js';
import { branchSchema, caseInsensitiveEnum, repoSchema, MAX_NAME } from '../../validation/common.js';
import { compileValidator } from '../../validation/validator.js';

const shaSchema = Type.String({ pattern: '^[0-9a-fA-F]{40}([0-9a-fA-F]{24})?$' });

export const SetCommitStatusSchema = Type.Object(
  {
    repo: repoSchema,
    sha: shaSchema,
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

export const VerifyCommitSchema = Type.Object({ repo: repoSchema, sha: shaSchema }, { additionalProperties: false });
export type VerifyCommitBody = Static<typeof VerifyCommitSchema>;
export const parseVerifyCommit = compileValidator(VerifyCommitSchema);

const nullableString = Type.Union([Type.String(), Type.Null()]);

export const VerifyCommitResponse = Type.Object(
  {
    sha: Type.String(),
    tested: Type.Boolean({ description: "The commit's exact tree passed the queue's required statuses" }),
    detail: Type.String(),
    targetBranch: nullableString,
    prNumber: Type.Union([Type.Integer(), Type.Null()]),
    testRun: Type.Union([
      Type.Object(
        {
          id: Type.String(),
          sha: nullableString,
          tree: nullableString,
          requiredStatuses: Type.Array(Type.Object({ context: Type.String(), state: nullableString }, { additionalProperties: false })),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
  },
  { additionalProperties: false },
);
