// Requests of the hosted CLI's internal endpoints (notes §1.5, §2.1). camelCase, and unknown
// fields are tolerated: CLI versions add fields, and a rejected request would make a CI step fail
// or lose its quarantine. Every field we read is still type- and length-checked.
import Type, { type Static } from 'typebox';
import { MAX_NAME, repoSchema } from '../../validation/common.js';
import { compileValidator } from '../../validation/validator.js';

const cliRepo = Type.Object(repoSchema.properties, { additionalProperties: true });
const orgUrlSlug = Type.String({ minLength: 1, maxLength: MAX_NAME });
const remoteUrls = Type.Optional(Type.Array(Type.String({ maxLength: 2048 }), { maxItems: 100 }));

export const CreateBundleUploadSchema = Type.Object(
  { repo: cliRepo, orgUrlSlug, clientVersion: Type.Optional(Type.String({ maxLength: 1024 })), remoteUrls },
  { additionalProperties: true },
);
export type CreateBundleUploadBody = Static<typeof CreateBundleUploadSchema>;

export const parseCreateBundleUpload = compileValidator(CreateBundleUploadSchema);

export const GetQuarantineConfigSchema = Type.Object(
  {
    repo: cliRepo,
    orgUrlSlug,
    remoteUrls,
    testIdentifiers: Type.Optional(Type.Array(Type.Object({}), { maxItems: 1_000_000 })),
  },
  { additionalProperties: true },
);
export type GetQuarantineConfigBody = Static<typeof GetQuarantineConfigSchema>;

export const parseGetQuarantineConfig = compileValidator(GetQuarantineConfigSchema);
