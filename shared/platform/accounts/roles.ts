// What a token may do. Each role includes the ones before it: read < write < admin.
export const ROLES = ['read', 'write', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Tokens stored before roles existed carry none; they keep the access they had: everything. */
export const DEFAULT_ROLE: Role = 'admin';

export function roleAllows(held: Role, needed: Role): boolean {
  return ROLES.indexOf(held) >= ROLES.indexOf(needed);
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
