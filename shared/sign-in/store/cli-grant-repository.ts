// Tokens promised to a CLI on someone's machine (`openmq login`): the person approved it in the
// dashboard, and the CLI collects it with the one-time code and the PKCE verifier only it holds.
// Stored under the SHA-256 of the code; taken once.
import type { Database } from '../../platform/database/collection.js';
import type { PersonActor } from '../../platform/accounts/actor.js';
import type { Role } from '../../platform/accounts/roles.js';
import { DbOneTimeRecordRepository, type OneTimeRecord, type OneTimeRecordRepository } from './one-time-record-repository.js';

export interface CliGrant extends OneTimeRecord {
  /** The person who approved it, as they were signed in. */
  person: PersonActor;
  /** base64url(SHA-256(verifier)) of the CLI's PKCE verifier. */
  challenge: string;
  name: string;
  role: Role;
}

export type CliGrantRepository = OneTimeRecordRepository<CliGrant>;

export const createCliGrantRepository = (db: Database) => new DbOneTimeRecordRepository<CliGrant>(db, 'cli_grants', 'grants the CLI never collected');
