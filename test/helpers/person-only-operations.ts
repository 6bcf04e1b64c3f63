// Operations whose use case serves a person signed in, not an API token: a token of any role
// passes their role check, then is answered 403 person_required (docs/api.md, Personal tokens).
export const PERSON_ONLY_OPERATIONS: readonly string[] = ['createPersonalToken', 'listPersonalTokens', 'revokePersonalToken'];
