// The extension's schema interpreter (src/schema-check.ts) gives Ajv's verdict, and names the
// same wrong fields, for each keyword it knows: checked side by side with Ajv 2020 itself.
import Ajv2020 from 'ajv/dist/2020';
import { wrongFields } from '../../../src/response-errors';
import { ISchema, validatorFor } from '../../../src/schema-check';

const DOC: ISchema = {
  $id: 'urn:test:doc',
  type: 'object',
  required: ['kind', 'items'],
  properties: {
    kind: { enum: ['a', 'b'] },
    fixed: { const: 'same' },
    count: { type: 'integer' },
    maybe: { type: ['string', 'null'] },
    items: {
      type: 'array',
      prefixItems: [{ type: 'string' }],
      items: { type: 'number' }
    },
    either: {
      anyOf: [{ type: 'string' }, { type: 'object', required: ['x'] }]
    },
    exactly: { oneOf: [{ type: 'string' }, { const: 1 }] },
    both: { allOf: [{ $ref: '#/$defs/named' }, { required: ['extra'] }] },
    other: { $ref: 'urn:test:other#/$defs/flag' },
    map: { type: 'object', additionalProperties: { type: 'boolean' } }
  },
  dependentSchemas: { address: { required: ['label'] } },
  $defs: { named: { type: 'object', required: ['name'] } }
};
const OTHER: ISchema = {
  $id: 'urn:test:other',
  $defs: { flag: { type: 'boolean' } }
};

const GOOD = {
  kind: 'a',
  fixed: 'same',
  count: 3,
  maybe: null,
  items: ['first', 1, 2.5],
  either: { x: 1 },
  exactly: 1,
  both: { name: 'n', extra: true },
  other: false,
  map: { on: true },
  address: 'somewhere',
  label: 'L'
};

const CASES: [string, Record<string, unknown>][] = [
  ['valid', GOOD],
  ['missing required', { ...GOOD, kind: undefined }],
  ['enum', { ...GOOD, kind: 'c' }],
  ['const', { ...GOOD, fixed: 'other' }],
  ['integer', { ...GOOD, count: 1.5 }],
  ['type list', { ...GOOD, maybe: 3 }],
  ['prefix item', { ...GOOD, items: [1, 2] }],
  ['later item', { ...GOOD, items: ['a', 'b'] }],
  ['anyOf', { ...GOOD, either: { y: 1 } }],
  ['oneOf, none', { ...GOOD, exactly: 2 }],
  ['allOf with a local $ref', { ...GOOD, both: { extra: 1 } }],
  ['$ref to another document', { ...GOOD, other: 'no' }],
  ['additionalProperties', { ...GOOD, map: { on: 'yes' } }],
  ['dependentSchemas', { ...GOOD, label: undefined }],
  ['not an object', [] as unknown as Record<string, unknown>],
  ['a member named with / and ~', { ...GOOD, map: { 'a/b~c': 1 } }]
];

describe('the schema interpreter agrees with Ajv', () => {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  ajv.addSchema(OTHER);
  const reference = ajv.compile(DOC);
  const validate = validatorFor([DOC, OTHER], 'urn:test:doc');

  test.each(CASES)('%s', (_, raw) => {
    const data = JSON.parse(JSON.stringify(raw)) as unknown;
    const verdict = validate(data);
    expect(verdict).toBe(reference(data));
    expect(wrongFields(validate.errors).sort()).toEqual(
      wrongFields(reference.errors).sort()
    );
  });

  test('a reference to a schema it was not given fails when the validator is made', () => {
    expect(() => validatorFor([DOC], 'urn:test:missing')).toThrow(/no schema/);
  });
});
