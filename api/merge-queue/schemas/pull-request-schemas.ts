// Request schemas of the pull-request endpoints (wire-contract §2.2–§2.6, §2.13).
import Type, { type Static } from 'typebox';
import { ENTRY_STATES } from '../../../shared/merge-queue/domain/model.js';
import { branchSchema, caseInsensitiveEnum, dateTimeSchema, MAX_NAME, prNumberSchema, repoSchema } from '../../validation/common.js';
import { compileValidator } from '../../validation/validator.js';

const queueRef = { repo: repoSchema, targetBranch: branchSchema };

const prNumberOnly = Type.Object({ number: prNumberSchema }, { additionalProperties: false });
const prBranchOnly = Type.Object({ branch: branchSchema }, { additionalProperties: false });

export const PrRefSchema = Type.Object({ ...queueRef, pr: prNumberOnly }, { additionalProperties: false });
export type PrBody = Static<typeof PrRefSchema>;

export const SubmitSchema = Type.Object(
  {
    ...queueRef,
    pr: prNumberOnly,
    // Range and names are checked by the domain (resolvePriority) so the message can list them.
    priority: Type.Optional(Type.Union([Type.Integer(), Type.String({ maxLength: 32 }), Type.Null()])),
    noBatch: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type SubmitBody = Static<typeof SubmitSchema>;

export const parseSubmit = compileValidator(SubmitSchema);
export const parsePrRef = compileValidator(PrRefSchema);

export const GetSubmittedSchema = Type.Object(
  {
    ...queueRef,
    // oneOf (TypeBox's Union is anyOf): the error details name the keyword the API always named.
    pr: Type.Unsafe<Static<typeof prNumberOnly> | Static<typeof prBranchOnly>>({ oneOf: [prNumberOnly, prBranchOnly] }),
    includeTimeline: Type.Optional(Type.Boolean()),
    includeEstimatedTimeToMerge: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type GetSubmittedBody = Static<typeof GetSubmittedSchema>;

export const parseGetSubmitted = compileValidator(GetSubmittedSchema);

/** Largest accepted target list; bigger lists should be sent as "ALL" (spec §8). */
export const MAX_IMPACTED_TARGETS = 1_000_000;

export const SetImpactedTargetsSchema = Type.Object(
  {
    ...queueRef,
    pr: Type.Object(
      {
        // The official uploader sends the number as a JSON string.
        number: Type.Union([Type.Integer({ minimum: 1, maximum: 4294967295 }), Type.String({ pattern: '^[1-9][0-9]{0,9}$' })]),
        sha: Type.String({ pattern: '^[0-9a-fA-F]{7,64}$' }),
      },
      { additionalProperties: false },
    ),
    impactedTargets: Type.Union([Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { maxItems: MAX_IMPACTED_TARGETS }), Type.Literal('ALL')]),
  },
  { additionalProperties: false },
);
export type SetImpactedTargetsBody = Static<typeof SetImpactedTargetsSchema>;

export const parseSetImpactedTargets = compileValidator(SetImpactedTargetsSchema);

export const ListPullRequestsSchema = Type.Object(
  {
    ...queueRef,
    state: Type.Optional(caseInsensitiveEnum(ENTRY_STATES, 64)),
    since: Type.Optional(dateTimeSchema(MAX_NAME)),
    cursor: Type.Optional(Type.String({ format: 'uuid', maxLength: 64 })),
    take: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
);
export type ListPullRequestsBody = Static<typeof ListPullRequestsSchema>;

export const parseListPullRequests = compileValidator(ListPullRequestsSchema);
