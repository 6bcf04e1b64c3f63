// The part of every redirect sign-in that does not depend on the provider: a random `state` and
// PKCE verifier stored for ten minutes under the state's hash, and, on the way back, the checks
// that the callback belongs to this browser's sign-in, is its first use, is in time, and was not
// refused by the provider.
import { createHash, randomBytes } from 'node:crypto';
import type { SignInProvider } from '../../platform/accounts/actor.js';
import type { SignInAttempt, SignInAttemptRepository } from '../store/sign-in-attempt-repository.js';
import { SignInError } from './sign-in-error.js';

/** How long a person may take at the provider before the callback is refused. */
export const ATTEMPT_TTL_MS = 10 * 60_000;

const stateKey = (state: string) => createHash('sha256').update(state, 'utf8').digest('hex');
const random = () => randomBytes(32).toString('base64url');

/** PKCE S256: base64url(SHA-256(verifier)). */
export const pkceChallenge = (verifier: string) => createHash('sha256').update(verifier, 'utf8').digest('base64url');

export async function beginAttempt(
  attempts: SignInAttemptRepository,
  init: { provider: SignInProvider; redirectUri: string; next: string },
  now: Date,
): Promise<{ state: string; attempt: SignInAttempt }> {
  const state = random();
  const attempt: SignInAttempt = {
    key: stateKey(state),
    codeVerifier: random(),
    nonce: random(),
    expiresAt: new Date(now.getTime() + ATTEMPT_TTL_MS),
    ...init,
  };
  await attempts.purgeExpired(now);
  await attempts.insert(attempt);
  return { state, attempt };
}

/** The attempt a callback finishes, taken once; every way it can be wrong is a SignInError. */
export async function takeAttempt(attempts: SignInAttemptRepository, query: URLSearchParams, browserState: string | null, now: Date): Promise<SignInAttempt> {
  const state = query.get('state');
  if (!state || !browserState || state !== browserState) throw new SignInError('state_mismatch', 'the state does not match the one this browser began with');
  const attempt = await attempts.take(stateKey(state));
  if (!attempt || attempt.expiresAt <= now)
    throw new SignInError('sign_in_expired', attempt ? 'the sign-in began too long ago' : 'no sign-in under way with this state');
  const refused = query.get('error');
  if (refused) throw new SignInError('provider_refused', `${refused}: ${query.get('error_description') ?? 'no description'}`);
  return attempt;
}
