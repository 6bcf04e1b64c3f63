// The sign-in module's repositories (indexes: shared/platform/database/ensure-indexes.ts).
import type { Database } from '../../platform/database/collection.js';
import { DbSessionRepository, type SessionRepository } from './session-repository.js';
import { DbSignInAttemptRepository, type SignInAttemptRepository } from './sign-in-attempt-repository.js';

export interface SignInStore {
  sessions: SessionRepository;
  attempts: SignInAttemptRepository;
}

export function createSignInStore(db: Database): SignInStore {
  return { sessions: new DbSessionRepository(db), attempts: new DbSignInAttemptRepository(db) };
}
