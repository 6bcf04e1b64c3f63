// The embedded store's value → ids lookup against a brute-force scan of the same documents, over
// random adds, replacements and removals: a value held by one document is kept as that id alone
// and by several as a set, and every change between the two forms must keep the answers exact.
import { expect } from 'chai';
import type { Document } from 'mongodb';
import { FieldLookup } from '../../../shared/platform/database/embedded/field-lookup.js';
import { valueKey } from '../../../shared/platform/database/embedded/document-values.js';
import { rng } from '../../../shared/platform/seeded-random.js';

const VALUES: unknown[] = ['a', 'b', 'c', 1, 2, '1', true, new Date(5), new Date(6), null];

function randomField(random: () => number): unknown {
  const pick = () => VALUES[Math.floor(random() * VALUES.length)];
  const roll = random();
  if (roll < 0.1) return undefined;
  if (roll < 0.3) return [pick(), pick(), [pick()]];
  return pick();
}

/** Ids of the documents whose field equals the value or holds it in an array, as MongoDB's equality reads them. */
function scan(docs: Map<string, Document>, value: unknown): string[] {
  const key = valueKey(value);
  const holds = (field: unknown): boolean => (Array.isArray(field) ? field.some(holds) : valueKey(field) === key);
  return [...docs].filter(([, doc]) => doc.f !== undefined && doc.f !== null && holds(doc.f)).map(([id]) => id);
}

describe('embedded database: field lookup', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`answers like a scan of the documents after random adds, replacements and removals (seed ${seed})`, () => {
      const random = rng(seed);
      const lookup = new FieldLookup('f');
      const docs = new Map<string, Document>();
      for (let step = 0; step < 600; step++) {
        const id = `d${Math.floor(random() * 12)}`;
        const current = docs.get(id);
        const roll = random();
        if (!current) {
          const doc = { _id: id, f: randomField(random) };
          lookup.add(doc, id);
          docs.set(id, doc);
        } else if (roll < 0.6) {
          const next = { _id: id, f: randomField(random) };
          lookup.replace(current, next, id);
          docs.set(id, next);
        } else {
          lookup.remove(current, id);
          docs.delete(id);
        }
        for (const value of VALUES.filter((v) => v !== null)) {
          const expected = scan(docs, value).sort();
          expect([...lookup.idsFor(value)].sort(), `step ${step}, value ${valueKey(value)}`).to.deep.equal(expected);
          expect(lookup.countFor(value)).to.equal(expected.length);
        }
      }
    });
  }
});
