// Why a sign-in did not finish, in words the sign-in page shows. The code travels to the page in
// its address (`/sign-in?error=<code>`); the message is logged beside it.
export const SIGN_IN_ERRORS = {
  state_mismatch: 'This sign-in was not started in this browser. Start again.',
  sign_in_expired: 'This sign-in took too long or was already used. Start again.',
  provider_refused: 'The identity provider did not sign you in.',
  code_rejected: 'The identity provider refused to finish the sign-in (the code expired or was already used). Start again.',
  id_token_invalid: "The identity provider's answer could not be verified, so it was refused.",
  provider_unreachable: 'The identity provider could not be reached. Try again in a moment.',
  no_access: 'You signed in, but your account has no role on this service. Ask an administrator for access.',
} as const;

export type SignInErrorCode = keyof typeof SIGN_IN_ERRORS;

export const isSignInErrorCode = (value: string): value is SignInErrorCode => Object.hasOwn(SIGN_IN_ERRORS, value);

export class SignInError extends Error {
  constructor(
    readonly code: SignInErrorCode,
    /** What happened, for the log (never a secret). */
    readonly detail: string,
  ) {
    super(`${SIGN_IN_ERRORS[code]} (${detail})`);
  }
}
