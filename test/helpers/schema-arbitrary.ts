import fc from 'fast-check';

/** A JSON Schema (2020-12, as the OpenAPI 3.1 document writes it). */
export type Schema = Record<string, any>;

/** Values a generated uuid may take besides random ones: ids the server has answered with. */
export type IdPool = (name: string) => string[];

const LONG = 'x'.repeat(5000);
const UNICODE = ['é', 'ß', 'Дакар', '東京', '😀', '👩🏽‍🍳', 'ع', '\u200b', '\ufeff'];

/** `#/components/schemas/X` inside the document. */
export function deref(doc: Schema, schema: Schema | undefined): Schema {
  let s = schema ?? {};
  while (typeof s.$ref === 'string') {
    s = s.$ref
      .slice(2)
      .split('/')
      .reduce(
        (node: Schema, token: string) => node[decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~')],
        doc,
      );
  }
  return s;
}

export const typesOf = (s: Schema): string[] => (s.type === undefined ? [] : [s.type].flat());

/** A decimal number within the bounds, written without exponent once it is text. */
function numberIn(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + (integer ? 1 : 0.001) : -1e6);
  const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - (integer ? 1 : 0.001) : 1e6);
  if (integer)
    return fc.oneof(
      fc.constantFrom(Math.ceil(min), Math.floor(max)),
      fc.integer({ min: Math.ceil(min), max: Math.floor(max) }),
    );
  const scale = 1000;
  return fc.oneof(
    fc.constantFrom(min, max),
    fc.integer({ min: Math.ceil(min * scale), max: Math.floor(max * scale) }).map((n) => n / scale),
  );
}

const phone = fc
  .tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 99_999_999 }))
  .map(([a, b]) => `+4917${a}${String(b).padStart(8, '0')}`);
const date = fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true });

function stringOf(s: Schema, ids: IdPool, name: string): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? Infinity;
  const fits = (v: string) => [...v].length >= min && [...v].length <= max;
  const upTo = Math.min(max, Math.max(min, 40));
  switch (s.format) {
    case 'uuid': {
      const known = ids(name);
      return known.length
        ? fc.oneof({ arbitrary: fc.constantFrom(...known), weight: 4 }, fc.uuid({ version: 7 }))
        : fc.uuid({ version: 7 });
    }
    case 'email':
      return fc.emailAddress().filter(fits);
    case 'date-time':
      return date.map((d) => d.toISOString());
    case 'date':
      return date.map((d) => d.toISOString().slice(0, 10));
    case 'uri':
      return fc.stringMatching(/^https:\/\/[a-z0-9]{1,12}\.(?:sn|com|org)\/[a-z0-9_-]{0,12}$/).filter(fits);
    case 'phone':
      return phone;
    case 'binary':
      return fc.constant('');
  }
  if (s.pattern) return fc.stringMatching(new RegExp(s.pattern)).filter(fits);
  return fc
    .oneof(
      fc.string({ minLength: min, maxLength: upTo, unit: 'grapheme' }),
      fc.string({
        minLength: Math.max(min, 1),
        maxLength: upTo,
        unit: fc.constantFrom('a', 'b', 'z', ' ', ...UNICODE),
      }),
    )
    .filter(fits);
}

/**
 * Values the schema accepts. `name` is the property or parameter the value is for (ids are drawn
 * from the pool under that name). Optional properties are present or not; lists stay short.
 */
export function valid(
  doc: Schema,
  schema: Schema | undefined,
  ids: IdPool,
  name = '',
  depth = 0,
): fc.Arbitrary<unknown> {
  const s = deref(doc, schema);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const union = s.anyOf ?? s.oneOf;
  if (Array.isArray(union)) return fc.oneof(...union.map((b: Schema) => valid(doc, b, ids, name, depth)));
  const types = typesOf(s);
  if (types.length > 1) return fc.oneof(...types.map((type) => valid(doc, { ...s, type }, ids, name, depth)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return numberIn(s, true);
    case 'number':
      return numberIn(s, false);
    case 'string':
      return stringOf(s, ids, name);
    case 'array': {
      const item = valid(doc, s.items, ids, name.replace(/s$/, ''), depth + 1);
      const constraints = {
        minLength: s.minItems ?? 0,
        maxLength: Math.min(s.maxItems ?? 3, Math.max(s.minItems ?? 0, 3)),
      };
      return s.uniqueItems
        ? fc.uniqueArray(item, { ...constraints, selector: (v) => JSON.stringify(v) })
        : fc.array(item, constraints);
    }
    case 'object':
      return objectOf(doc, s, ids, depth);
  }
  return fc.constant('x');
}

function objectOf(doc: Schema, s: Schema, ids: IdPool, depth: number): fc.Arbitrary<unknown> {
  const props = Object.entries((s.properties ?? {}) as Record<string, Schema>);
  const required: string[] = s.required ?? [];
  // Deep optional branches are left out: they add time, not coverage.
  const kept = depth > 3 ? props.filter(([k]) => required.includes(k)) : props;
  const record = fc.record(Object.fromEntries(kept.map(([k, p]) => [k, valid(doc, p, ids, k, depth + 1)])), {
    requiredKeys: required,
  });
  const minProps = s.minProperties ?? 0;
  return minProps > 0 && kept.length ? record.filter((o) => Object.keys(o).length >= minProps) : record;
}

/** Values of the wrong kind for a schema: one of them at least is refused by it (the caller checks). */
export function wrongValues(doc: Schema, schema: Schema | undefined): unknown[] {
  const s = deref(doc, schema);
  const out: unknown[] = [null, true, 17, -1, 'not-valid', [], {}, LONG, UNICODE.join('')];
  if (s.minimum !== undefined) out.push(s.minimum - 1, s.minimum - 0.5);
  if (s.maximum !== undefined) out.push(s.maximum + 1, s.maximum + 0.5, Number.MAX_SAFE_INTEGER);
  if (s.maxLength !== undefined) out.push('x'.repeat(s.maxLength + 1), '😀'.repeat(s.maxLength + 1));
  if (s.minLength) out.push('x'.repeat(s.minLength - 1));
  if (typesOf(s).includes('integer')) out.push(1.5);
  return out;
}

/** Text a query string or path parameter may carry for a number, a flag, an id: odd spellings included. */
export const WRONG_TEXT = [
  '0x10',
  '1e2',
  ' 5',
  '+5',
  '0b1',
  'Infinity',
  'NaN',
  '-0',
  '1.5',
  '',
  'true',
  'yes',
  'not-a-uuid',
  LONG,
  UNICODE.join(''),
  '%',
  '../x',
];

/**
 * How a query string or path parameter's text reads as the document's value: decimal digits are a
 * number, `true`/`false` a flag, anything else stays text (and so fails a numeric schema).
 */
export function fromText(doc: Schema, schema: Schema | undefined, text: string): unknown {
  const types = new Set(unionTypes(deref(doc, schema), doc));
  if ((types.has('integer') || types.has('number')) && /^-?\d+(?:\.\d+)?$/.test(text)) return Number(text);
  if (types.has('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

function unionTypes(s: Schema, doc: Schema): string[] {
  const branches: Schema[] = s.anyOf ?? s.oneOf ?? [];
  return [...typesOf(s), ...branches.flatMap((b) => unionTypes(deref(doc, b), doc))];
}
