// Sign-ins under way: what the callback needs to finish one (the PKCE verifier, the nonce, the
// page to land on), stored under the SHA-256 of the `state` sent to the provider and taken once:
// a replayed or forged callback finds nothing.
import type { Database } from '../../platform/database/collection.js';
import type { SignInProvider } from '../../platform/accounts/actor.js';
import { DbOneTimeRecordRepository, type OneTimeRecord, type OneTimeRecordRepository } from './one-time-record-repository.js';

export interface SignInAttempt extends OneTimeRecord {
  provider: SignInProvider;
  codeVerifier: string;
  nonce: string;
  /** The dashboard path to open once signed in. */
  next: string;
  /** The redirect URI sent with the authorization request (the token request repeats it). */
  redirectUri: string;
}

export type SignInAttemptRepository = OneTimeRecordRepository<SignInAttempt>;

export const createSignInAttemptRepository = (db: Database) => new DbOneTimeRecordRepository<SignInAttempt>(db, 'sign_in_attempts', 'abandoned sign-ins');
