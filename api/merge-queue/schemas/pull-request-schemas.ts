// Request schemas of the pull-request endpoints (wire-contract §2.2–§2.6, §2.13).
import { ENTRY_STATES, type EntryState } from '../../../shared/merge-queue/domain/model.js';
import { type RepoRef } from '../../../shared/repo-ref.js';
import { branchSchema, prNumberSchema, repoSchema, MAX_NAME } from '../../validation/common.js';
import { compileValidator } from '../../validation/validator.js';

const queueRef = { repo: repoSchema, targetBranch: branchSchema };

export interface PrBody {
  repo: RepoRef;
  targetBranch: string;
  pr: { number: number };
}

const prNumberOnly = {
  type: 'object',
  additionalProperties: false,
  required: ['number'],
  properties: { number: prNumberSchema },
} as const;

export interface SubmitBody extends PrBody {
  priority?: number | string | null;
  noBatch?: boolean;
}

export const parseSubmit = compileValidator<SubmitBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'targetBranch', 'pr'],
  properties: {
    ...queueRef,
    pr: prNumberOnly,
    // Range and names are checked by the domain (resolvePriority) so the message can list them.
    priority: { anyOf: [{ type: 'integer' }, { type: 'string', maxLength: 32 }, { type: 'null' }] },
    noBatch: { type: 'boolean' },
  },
});

export const parsePrRef = compileValidator<PrBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'targetBranch', 'pr'],
  properties: { ...queueRef, pr: prNumberOnly },
});

export interface GetSubmittedBody {
  repo: RepoRef;
  targetBranch: string;
  pr: { number: number } | { branch: string };
  includeTimeline?: boolean;
  includeEstimatedTimeToMerge?: boolean;
}

export const parseGetSubmitted = compileValidator<GetSubmittedBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'targetBranch', 'pr'],
  properties: {
    ...queueRef,
    pr: {
      oneOf: [
        prNumberOnly,
        { type: 'object', additionalProperties: false, required: ['branch'], properties: { branch: branchSchema } },
      ],
    },
    includeTimeline: { type: 'boolean' },
    includeEstimatedTimeToMerge: { type: 'boolean' },
  },
});

/** Largest accepted target list; bigger lists should be sent as "ALL" (spec §8). */
export const MAX_IMPACTED_TARGETS = 1_000_000;

export interface SetImpactedTargetsBody {
  repo: RepoRef;
  targetBranch: string;
  pr: { number: number | string; sha: string };
  impactedTargets: string[] | 'ALL';
}

export const parseSetImpactedTargets = compileValidator<SetImpactedTargetsBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'targetBranch', 'pr', 'impactedTargets'],
  properties: {
    ...queueRef,
    pr: {
      type: 'object',
      additionalProperties: false,
      required: ['number', 'sha'],
      properties: {
        // The official uploader sends the number as a JSON string.
        number: {
          anyOf: [
            { type: 'integer', minimum: 1, maximum: 4294967295 },
            { type: 'string', pattern: '^[1-9][0-9]{0,9}$' },
          ],
        },
        sha: { type: 'string', pattern: '^[0-9a-fA-F]{7,64}$' },
      },
    },
    impactedTargets: {
      anyOf: [
        { type: 'array', maxItems: MAX_IMPACTED_TARGETS, items: { type: 'string', minLength: 1, maxLength: 4096 } },
        { type: 'string', const: 'ALL' },
      ],
    },
  },
});

export interface ListPullRequestsBody {
  repo: RepoRef;
  targetBranch: string;
  state?: EntryState;
  since?: string;
  cursor?: string;
  take?: number;
}

export const parseListPullRequests = compileValidator<ListPullRequestsBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'targetBranch'],
  properties: {
    ...queueRef,
    state: { type: 'string', maxLength: 64, caseInsensitiveEnum: [...ENTRY_STATES] },
    since: { type: 'string', format: 'date-time', maxLength: MAX_NAME },
    cursor: { type: 'string', format: 'uuid', maxLength: 64 },
    take: { type: 'integer', minimum: 1, maximum: 100 },
  },
});
