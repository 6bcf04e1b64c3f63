// The embedded database's value helpers: the journal's EJSON text reads back to what the
// driver's own text gives, and the no-op check of updates agrees with valueKey equality.
import { expect } from 'chai';
import { BSON, Decimal128, Long, ObjectId } from 'mongodb';
import { ejsonText } from '../../../shared/database/embedded/ejson-text.js';
import { sameValue, valueKey } from '../../../shared/database/embedded/document-values.js';

const samples: Record<string, unknown> = {
  flat: { _id: 'u1:0', n: 1, f: 1.5, big: 2 ** 53 - 1, neg: -3, t: true, no: false, nil: null, s: 'a "quoted"\nline\u2028' },
  dates: { at: new Date(Date.UTC(2026, 10, 23, 1, 2, 3, 4)), epoch: new Date(0), before1970: new Date(-5), far: new Date(253402300800001) },
  nested: { a: [1, [2, { b: new Date(5) }], null], o: { p: { q: 'r' } }, empty: {}, none: [] },
  special: { nan: NaN, inf: Infinity, ninf: -Infinity, negZero: -0, oid: new ObjectId(), long: Long.fromNumber(7), dec: Decimal128.fromString('1.10'), re: /x+/i, bin: Buffer.from([1, 2, 3]) },
  undefinedFields: { a: undefined, b: [undefined, 1] },
};

describe('embedded database: value helpers', () => {
  describe('ejsonText', () => {
    for (const [name, value] of Object.entries(samples)) {
      it(`reads back like the driver's EJSON: ${name}`, () => {
        const text = ejsonText(value);
        expect(text).not.to.include('\n');
        expect(valueKey(BSON.EJSON.parse(text))).to.equal(valueKey(BSON.EJSON.parse(BSON.EJSON.stringify(value))));
      });
    }

    it('writes the same text as the driver for the documents this service stores', () => {
      for (const name of ['flat', 'dates', 'nested']) expect(ejsonText(samples[name]), name).to.equal(BSON.EJSON.stringify(samples[name]));
    });
  });

  describe('sameValue', () => {
    const values: unknown[] = [
      null, undefined, 0, -0, 1, 1.5, NaN, 'a', 'b', '1', true, false,
      new Date(1), new Date(2), [1, 2], [2, 1], [1, [2]], { a: 1, b: 2 }, { b: 2, a: 1 }, { a: 1 }, { a: null }, { a: undefined }, {},
      new ObjectId('0123456789abcdef01234567'), new ObjectId('0123456789abcdef01234568'),
    ];
    it('agrees with valueKey equality on every pair', () => {
      for (const a of values) {
        for (const b of values) {
          expect(sameValue(a, b), `${String(valueKey(a))} vs ${String(valueKey(b))}`).to.equal(valueKey(a) === valueKey(b));
        }
      }
    });

    it('compares copies structurally', () => {
      const doc = { _id: 'x', at: new Date(3), list: [{ k: 'v', d: new Date(4) }] };
      expect(sameValue(doc, { _id: 'x', at: new Date(3), list: [{ k: 'v', d: new Date(4) }] })).to.equal(true);
      expect(sameValue(doc, { _id: 'x', at: new Date(3), list: [{ k: 'v', d: new Date(5) }] })).to.equal(false);
    });
  });
});
