// githubActionsLogin: a GitHub Actions run's OpenID Connect token in, a token that uploads the
// run's repository's impacted targets out.
import Type from 'typebox';
import { compileValidator } from '../validation/validator.js';

export const GitHubActionsLoginSchema = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 16_384, description: "The run's OpenID Connect token (`core.getIDToken(audience)`)" }) },
  { additionalProperties: false },
);
export const parseGitHubActionsLogin = compileValidator(GitHubActionsLoginSchema);

export const GitHubActionsLoginResponse = Type.Object(
  {
    token: Type.String({ description: 'Send as `x-trunk-token` (or `Authorization: Bearer`) to PUT /v2/impacted-targets of this repository only' }),
    expiresAt: Type.String({ format: 'date-time' }),
    repository: Type.String({ description: 'owner/name' }),
    repositoryId: Type.String({ format: 'uuid', description: "The repository's v2 id, for the upload's `repositoryId`" }),
  },
  { additionalProperties: false },
);
