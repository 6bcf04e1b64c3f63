// The sign-in module's repositories (indexes: shared/platform/database/ensure-indexes.ts).
import type { Database } from '../../platform/database/collection.js';
import { DbSessionRepository, type SessionRepository } from './session-repository.js';
import { createSignInAttemptRepository, type SignInAttemptRepository } from './sign-in-attempt-repository.js';
import { createCliGrantRepository, type CliGrantRepository } from './cli-grant-repository.js';

export interface SignInStore {
  sessions: SessionRepository;
  attempts: SignInAttemptRepository;
  cliGrants: CliGrantRepository;
}

export function createSignInStore(db: Database): SignInStore {
  return { sessions: new DbSessionRepository(db), attempts: createSignInAttemptRepository(db), cliGrants: createCliGrantRepository(db) };
}
