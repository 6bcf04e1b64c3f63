import { expect } from 'chai';
import { v5 as uuidv5 } from 'uuid';
import { rng } from '../../../shared/platform/seeded-random.js';
import {
  IDENTITY_NAMESPACE,
  identityChecksum,
  normalizeVariant,
  parseRepoUrl,
  repoFullName,
  singleHashTestId,
  testId,
  uuidVersion,
  type TestIdentityInput,
} from '../../../shared/flaky-tests/domain/test-identity.js';

// Vectors from flaky-tests notes §1.1 (the CLI crate's own unit tests and a worked sample).
const EXAMPLE: TestIdentityInput = {
  orgUrlSlug: 'example_org',
  repoFullName: 'example_repo',
  file: 'src/lib.rs',
  classname: 'ExampleClass',
  parent: 'parent/fact/path',
  name: 'example_name',
};

describe('flaky/test-identity', () => {
  it('hashes the base tuple with UUIDv5 in the URL namespace', () => {
    expect(testId(EXAMPLE)).to.equal('06cb6db5-f807-5198-b072-af67a0636f8a');
    expect(identityChecksum(['example_org', 'example_repo', 'src/lib.rs', 'ExampleClass', 'parent/fact/path', 'example_name', 'JUNIT_TESTCASE'])).to.equal(
      '06cb6db5-f807-5198-b072-af67a0636f8a',
    );
  });

  it('computes the same UUIDv5 as the uuid package for any name: ASCII, accents, CJK, emoji, empty, long', () => {
    const random = rng(5);
    const alphabet = ['a', 'Z', '9', '#', '/', ' ', 'é', 'ß', '中', '文', '😀', '\u0000', '\n'];
    const names = [[''], ['#'], ['x'.repeat(5000)]];
    for (let i = 0; i < 500; i++) {
      const parts = Array.from({ length: 1 + Math.floor(random() * 6) }, () =>
        Array.from({ length: Math.floor(random() * 30) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''),
      );
      names.push(parts);
    }
    for (const parts of names) expect(identityChecksum(parts), JSON.stringify(parts)).to.equal(uuidv5(parts.join('#'), IDENTITY_NAMESPACE));
  });

  it('double-hashes a variant: inner base-with-variant id, then "<uuid>#<variant>"', () => {
    expect(singleHashTestId({ ...EXAMPLE, variant: 'unix' })).to.equal('c869cb93-66e2-516d-a0ea-15ff4b413c3f');
    expect(testId({ ...EXAMPLE, variant: 'unix' })).to.equal('1bf61475-b542-5faf-aa85-e66a691257a3');
  });

  it('uses the org/repo/id tuple for trunk: ids (with variant)', () => {
    expect(testId({ ...EXAMPLE, infoId: 'trunk:12345', variant: 'unix' })).to.equal('4392f63c-8dc9-5cec-bbdc-e7b90c2e5a6b');
  });

  it('keeps a v5 id without a variant and hashes it with the variant otherwise', () => {
    const v5 = 'a6e84936-3ee9-57d5-b041-ae124896f654';
    expect(testId({ ...EXAMPLE, infoId: v5 })).to.equal(v5);
    expect(testId({ ...EXAMPLE, infoId: v5, variant: 'unix' })).to.equal('8057218b-95e4-5373-afbe-c366d4058615');
  });

  it('ignores a non-v5 id (v4 UUID) and falls back to the tuple', () => {
    const v4 = '08e1c642-3a55-45cf-8bf9-b9d0b21785dd';
    expect(testId({ ...EXAMPLE, infoId: v4 })).to.equal('06cb6db5-f807-5198-b072-af67a0636f8a');
    // With an id present the CLI does not apply the second hash, even when the id was ignored.
    expect(testId({ ...EXAMPLE, infoId: v4, variant: 'unix' })).to.equal('c869cb93-66e2-516d-a0ea-15ff4b413c3f');
  });

  it('reproduces the real staging test (no file, classname = parent = path)', () => {
    const path = 'modules/settings/repoName/__tests__/ticketing-integration.vitest.tsx';
    expect(
      testId({
        orgUrlSlug: 'trunk-staging-org',
        repoFullName: 'github.com/trunk-io/trunk',
        file: null,
        classname: path,
        parent: path,
        name: 'Ticketing Integration > should allow you to select a ticketing system',
      }),
    ).to.equal('3f507aef-e834-523b-a8ad-edaba6b137be');
  });

  it('reproduces the worked googletest sample, with and without variant', () => {
    const input: TestIdentityInput = {
      orgUrlSlug: 'acme',
      repoFullName: repoFullName({ host: 'github.com', owner: 'acme', name: 'widgets' }),
      file: 'trunk/hello_world/cc/hello_test.cc',
      classname: 'HelloTest',
      parent: 'HelloTest',
      name: 'Hello',
    };
    expect(testId(input)).to.equal('78c4b9de-1f50-5734-9f31-d4d1cd9f229a');
    expect(singleHashTestId({ ...input, variant: 'linux' })).to.equal('69a31342-a004-51bc-beda-b8b1e1537eaf');
    expect(testId({ ...input, variant: 'linux' })).to.equal('11dd6acd-3c9a-5031-9cf8-439075a20c36');
  });

  it('treats missing values as empty strings and an empty variant/id as absent', () => {
    const a = testId({ orgUrlSlug: 'o', repoFullName: 'r', name: 'n' });
    const b = testId({ orgUrlSlug: 'o', repoFullName: 'r', file: '', classname: '', parent: '', name: 'n', infoId: '', variant: '' });
    expect(a).to.equal(b);
  });

  it('truncates variants to 64 characters before hashing (§1.2)', () => {
    const long = 'x'.repeat(80);
    expect(normalizeVariant(long)).to.have.length(64);
    expect(testId({ ...EXAMPLE, variant: long })).to.equal(testId({ ...EXAMPLE, variant: 'x'.repeat(64) }));
    expect(normalizeVariant(null)).to.equal('');
  });

  it('reads UUID versions in every accepted spelling', () => {
    expect(uuidVersion('a6e84936-3ee9-57d5-b041-ae124896f654')).to.equal(5);
    expect(uuidVersion('A6E849363EE957D5B041AE124896F654')).to.equal(5);
    expect(uuidVersion('{a6e84936-3ee9-57d5-b041-ae124896f654}')).to.equal(5);
    expect(uuidVersion('urn:uuid:08e1c642-3a55-45cf-8bf9-b9d0b21785dd')).to.equal(4);
    expect(uuidVersion('trunk:1')).to.equal(null);
  });

  it('parses git remote URLs like the CLI (no lower-casing, subgroups, .git)', () => {
    expect(parseRepoUrl('git@github.com:trunk-io/trunk.git')).to.deep.equal({ host: 'github.com', owner: 'trunk-io', name: 'trunk' });
    expect(parseRepoUrl('https://github.com/Acme/Widgets/')).to.deep.equal({ host: 'github.com', owner: 'Acme', name: 'Widgets' });
    expect(parseRepoUrl('ssh://git@gitlab.com:2222/group/sub/proj.git')).to.deep.equal({ host: 'gitlab.com', owner: 'group/sub', name: 'proj' });
    expect(parseRepoUrl('https://user:pw@example.com/a/b.git')).to.deep.equal({ host: 'example.com', owner: 'a', name: 'b' });
    expect(parseRepoUrl('not a url')).to.equal(null);
  });
});
