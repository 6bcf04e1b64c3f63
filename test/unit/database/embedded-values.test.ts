// The embedded database's value helpers: the journal's EJSON text reads back to what the
// driver's own text gives, the no-op check of updates agrees with valueKey equality, and the
// interner shares values without changing them; stored documents and the copies handed out keep
// V8's compact object layout.
import v8 from 'node:v8';
import { expect } from 'chai';
import { BSON, Decimal128, Long, ObjectId } from 'mongodb';
import { openEmbeddedDatabase } from '../../../shared/platform/database/embedded/embedded-database.js';
import { ejsonText } from '../../../shared/platform/database/embedded/ejson-text.js';
import { sameValue, valueKey } from '../../../shared/platform/database/embedded/document-values.js';
import { ValueInterner } from '../../../shared/platform/database/embedded/value-interner.js';

const samples: Record<string, unknown> = {
  flat: { _id: 'u1:0', n: 1, f: 1.5, big: 2 ** 53 - 1, neg: -3, t: true, no: false, nil: null, s: 'a "quoted"\nline\u2028' },
  dates: { at: new Date(Date.UTC(2026, 10, 23, 1, 2, 3, 4)), epoch: new Date(0), before1970: new Date(-5), far: new Date(253402300800001) },
  nested: { a: [1, [2, { b: new Date(5) }], null], o: { p: { q: 'r' } }, empty: {}, none: [] },
  special: {
    nan: NaN,
    inf: Infinity,
    ninf: -Infinity,
    negZero: -0,
    oid: new ObjectId(),
    long: Long.fromNumber(7),
    dec: Decimal128.fromString('1.10'),
    re: /x+/i,
    bin: Buffer.from([1, 2, 3]),
  },
  undefinedFields: { a: undefined, b: [undefined, 1] },
  columns: { nums: [1, 2, 3.5, -4], strs: ['a', 'b'], mixed: [1, 'a', null, true], dateLate: [1, 2, new Date(7), 4], obj: { x: 1, y: new Date(8), z: 'q' } },
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
      for (const name of ['flat', 'dates', 'nested', 'columns']) expect(ejsonText(samples[name]), name).to.equal(BSON.EJSON.stringify(samples[name]));
    });

    it('leaves the value it writes as it was (arrays and objects without Dates are written without a copy)', () => {
      const value = { cols: [1, 2, 3], at: new Date(9), list: [4, new Date(10), 'x'], o: { u: undefined, n: 1 } };
      const before = BSON.EJSON.stringify(value);
      const cols = value.cols;
      ejsonText(value);
      expect(BSON.EJSON.stringify(value)).to.equal(before);
      expect(value.cols).to.equal(cols);
      expect(value.list[1]).to.be.instanceOf(Date);
      expect('u' in value.o && value.o.u === undefined).to.equal(true);
    });
  });

  describe('sameValue', () => {
    const values: unknown[] = [
      null,
      undefined,
      0,
      -0,
      1,
      1.5,
      NaN,
      'a',
      'b',
      '1',
      true,
      false,
      new Date(1),
      new Date(2),
      [1, 2],
      [2, 1],
      [1, [2]],
      { a: 1, b: 2 },
      { b: 2, a: 1 },
      { a: 1 },
      { a: null },
      { a: undefined },
      {},
      new ObjectId('0123456789abcdef01234567'),
      new ObjectId('0123456789abcdef01234568'),
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

describe('embedded database: value interner', () => {
  it('makes equal Dates and short strings of stored documents one instance, leaving ids and long strings alone', () => {
    const interner = new ValueInterner();
    const long = 'x'.repeat(300);
    const a = interner.document({ _id: 'same', at: new Date(5), s: 'abc', nested: [{ d: new Date(5) }], long });
    const b = interner.document({ _id: 'same'.slice(0), at: new Date(5), s: ['ab', 'c'].join(''), nested: [{ d: new Date(5) }], long: 'x'.repeat(300) });
    expect(b.at).to.equal(a.at);
    expect(b.nested[0].d).to.equal(a.at);
    expect(b.s).to.equal(a.s);
    expect(valueKey(b)).to.equal(valueKey(a));
    expect(b.at).to.not.equal(interner.document({ at: new Date(6) }).at);
  });

  it('takes values equal to those of the document replaced from it, whatever its tables hold', () => {
    const interner = new ValueInterner(1); // a table of one: only the replaced document can share
    const stored = interner.document({ _id: 't', at: new Date(5), nested: { d: new Date(7), list: [new Date(8)] }, kept: 'k' });
    interner.document({ other: new Date(99) }); // the tables now hold other values
    const next = interner.document(
      { _id: 't', at: new Date(5), nested: { d: new Date(7), list: [new Date(8), new Date(9)] }, moved: new Date(6), toString: 'own field' },
      stored,
    );
    expect(next.at).to.equal(stored.at);
    expect(next.nested.d).to.equal(stored.nested.d);
    expect(next.nested.list[0]).to.equal(stored.nested.list[0]);
    expect(next.nested.list[1].getTime()).to.equal(9);
    expect(next.moved.getTime()).to.equal(6);
    expect(next.toString).to.equal('own field');
    expect(next).to.not.equal(stored);
  });

  it('starts its tables over at the limit, keeping the values documents hold', () => {
    const interner = new ValueInterner(2);
    const first = interner.document({ at: new Date(1) });
    interner.document({ at: new Date(2) });
    interner.document({ at: new Date(3) }); // clears the table
    expect((first.at as Date).getTime()).to.equal(1);
    expect(interner.document({ at: new Date(1) }).at).to.not.equal(first.at);
  });
});

/**
 * V8's own answer to whether an object keeps the compact layout (not a dictionary of its fields).
 * The flag stays on until the call returns: V8 may parse the function's body only when it runs.
 */
function isCompact(value: object): boolean {
  v8.setFlagsFromString('--allow-natives-syntax');
  try {
    return (new Function('value', 'return %HasFastProperties(value)') as (value: object) => boolean)(value);
  } finally {
    v8.setFlagsFromString('--no-allow-natives-syntax');
  }
}

describe('embedded database: document layout', () => {
  const wide = (): Record<string, unknown> => {
    const doc: Record<string, unknown> = { _id: 't1' };
    for (let i = 0; i < 30; i++) doc[`field${i}`] = i % 2 === 0 ? `v${i}` : { at: new Date(i), n: i };
    return doc;
  };

  it('can tell a dictionary from a compact object', () => {
    expect(isCompact(wide())).to.equal(false);
    expect(isCompact({ ...wide() })).to.equal(true);
  });

  it('keeps wide documents compact when stored, updated field by field and read (a dictionary takes several times the memory)', async () => {
    const db = await openEmbeddedDatabase();
    try {
      const col = db.collection<{ _id: string } & Record<string, unknown>>('wide');
      await col.insertOne(wide() as { _id: string });
      const added: Record<string, unknown> = {};
      for (let i = 0; i < 20; i++) added[`extra${i}`] = { nested: i };
      await col.updateOne({ _id: 't1' }, { $set: added, $unset: { field3: '' } });
      const [stored] = await col.find({ _id: 't1' }, { readOnly: true });
      const [copy] = await col.find({ _id: 't1' });
      for (const doc of [stored, copy]) {
        expect(doc).to.include.keys('extra19', 'field29');
        expect(doc).to.not.have.key('field3');
        expect(isCompact(doc as object)).to.equal(true);
      }
      expect(stored).to.not.equal(copy);
    } finally {
      await db.close();
    }
  });
});
