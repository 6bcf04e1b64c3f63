// Which role a person's claims grant (OIDC_ROLE_CLAIM and OIDC_*_VALUES), as a table: the highest
// role whose values match wins, `*` grants a role to everyone, a claim that is missing or not a
// string (list) grants nothing, and dotted claims reach into objects.
import { expect } from 'chai';
import { roleFromClaims, type RoleMapping } from '../../../shared/sign-in/domain/role-mapping.js';

const groups: RoleMapping = { claim: 'groups', values: { admin: ['platform'], write: ['eng', 'qa'], read: [] } };
const everyoneReads: RoleMapping = { claim: 'groups', values: { admin: ['platform'], write: [], read: ['*'] } };
const keycloak: RoleMapping = { claim: 'realm_access.roles', values: { admin: ['mq-admin'], write: ['mq-write'], read: ['mq-read'] } };
const department: RoleMapping = { claim: 'department', values: { admin: [], write: ['engineering'], read: [] } };

const TABLE: [string, RoleMapping, Record<string, unknown>, string | null][] = [
  ['an admin group', groups, { groups: ['platform'] }, 'admin'],
  ['the highest of several', groups, { groups: ['eng', 'platform'] }, 'admin'],
  ['a write group', groups, { groups: ['qa'] }, 'write'],
  ['no matching group', groups, { groups: ['marketing'] }, null],
  ['no groups at all', groups, {}, null],
  ['an empty list', groups, { groups: [] }, null],
  ['values that are not strings', groups, { groups: [1, true, { name: 'platform' }] }, null],
  ['case counts', groups, { groups: ['Platform'] }, null],
  ['a single string claim', department, { department: 'engineering' }, 'write'],
  ['everyone reads', everyoneReads, { groups: ['marketing'] }, 'read'],
  ['everyone reads, even without the claim', everyoneReads, {}, 'read'],
  ['everyone reads, an admin still admins', everyoneReads, { groups: ['platform'] }, 'admin'],
  ['a dotted claim', keycloak, { realm_access: { roles: ['offline_access', 'mq-write'] } }, 'write'],
  ['a dotted claim through a list', keycloak, { realm_access: [{ roles: ['mq-admin'] }] }, null],
  ['a dotted claim missing its object', keycloak, { realm_access: 'mq-admin' }, null],
];

describe('roles from identity-provider claims', () => {
  for (const [what, mapping, claims, role] of TABLE) {
    it(`${what}: ${role ?? 'no access'}`, () => {
      expect(roleFromClaims(claims, mapping)).to.equal(role);
    });
  }
});
