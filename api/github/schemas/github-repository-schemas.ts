// Requests and 200 answers of getGitHubRepository and updateGitHubRepository (docs/github.md).
import Type, { type Static } from 'typebox';
import { MAX_NAME, repoSchema } from '../../validation/common.js';
import { compileValidator } from '../../validation/validator.js';

export const GitHubRepositoryRefSchema = Type.Object({ repo: repoSchema }, { additionalProperties: false });
export const parseGitHubRepositoryRef = compileValidator(GitHubRepositoryRefSchema);

export const UpdateGitHubRepositorySchema = Type.Object(
  {
    repo: repoSchema,
    /** The slug of the organisation to move the repository to. */
    organization: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_NAME })),
    allowForkPullRequests: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 2 },
);
export type UpdateGitHubRepositoryBody = Static<typeof UpdateGitHubRepositorySchema>;
export const parseUpdateGitHubRepository = compileValidator(UpdateGitHubRepositorySchema);

export const GitHubRepositoryResponse = Type.Object(
  {
    repo: Type.Object({ host: Type.String(), owner: Type.String(), name: Type.String() }, { additionalProperties: false }),
    organization: Type.String(),
    claimedAt: Type.String({ format: 'date-time' }),
    allowForkPullRequests: Type.Boolean(),
  },
  { additionalProperties: false },
);
