import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { isValidPhoneNumber } from 'libphonenumber-js';
import { badRequest, type ErrorDetail } from '../shared/errors.js';
import type { LazyCompilers } from './lazy-compile.js';

// ajv-formats is published as CommonJS; its default export arrives nested under ESM interop.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, removeAdditional: false, strict: false, ...options });
  addFormats(ajv);
  ajv.addFormat('phone', { type: 'string', validate: (v: string) => v.startsWith('+') && isValidPhoneNumber(v) });
  // RFC 3339 admits leap seconds and year 0000, which neither JavaScript dates nor PostgreSQL
  // timestamps can hold: refuse them here rather than fail later.
  const rfc3339 = ajv.formats['date-time'] as { validate: (v: string) => boolean };
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (v: string) => rfc3339.validate(v) && !v.startsWith('0000') && !Number.isNaN(Date.parse(v)),
  });
  return ajv;
}

// Ajv turns text into a number with JavaScript's rules: "0x10" is 16, "1e2" 100, " 5" 5, "Infinity"
// a number. A JSON body can say none of these; a query string or a path parameter may not either.
const DECIMAL = /^-?\d+(?:\.\d+)?$/;
const isNumeric = (schema: unknown): boolean => {
  const s = schema as { type?: unknown; anyOf?: unknown[]; oneOf?: unknown[]; items?: unknown } | undefined;
  const types = [s?.type].flat();
  return (
    types.includes('integer') ||
    types.includes('number') ||
    [...(s?.anyOf ?? []), ...(s?.oneOf ?? []), s?.items].some((b) => b !== undefined && isNumeric(b))
  );
};

/**
 * `decimalText` on the object of a query string or path parameters: its numeric properties must be
 * written in plain decimals. It runs before `properties`, whose `type` would coerce the text first.
 */
function addDecimalText(ajv: Ajv): void {
  ajv.addKeyword({
    keyword: 'decimalText',
    type: 'object',
    before: 'properties',
    errors: true,
    compile(_value, parent) {
      const numeric = Object.entries((parent.properties ?? {}) as Record<string, unknown>)
        .filter(([, s]) => isNumeric(s))
        .map(([name]) => name);
      const check = (data: Record<string, unknown>): boolean => {
        const bad = numeric.filter((name) =>
          [data[name]].flat().some((v) => typeof v === 'string' && !DECIMAL.test(v)),
        );
        check.errors = bad.map((name) => ({
          instancePath: `/${name}`,
          keyword: 'decimalText',
          params: {},
          message: 'must be a number in decimal digits',
        }));
        return bad.length === 0;
      };
      check.errors = [] as object[];
      return check;
    },
  });
}

/**
 * Bodies are JSON and must already carry the right types: no coercion, no silently dropped
 * properties. Query strings and path parameters are text, so they are coerced.
 */
export function installValidation(app: FastifyInstance, compilers: LazyCompilers): void {
  const body = makeAjv({ coerceTypes: false });
  const text = makeAjv({ coerceTypes: 'array' });
  addDecimalText(text);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    compilers.wrap(() => (httpPart === 'body' ? body.compile(schema) : text.compile({ ...schema, decimalText: true }))),
  );
  app.addHook('preValidation', async (req) => {
    // First, before anything walks the request's values: every walk below recurses one level per
    // level of nesting, so the depth limit is what bounds them.
    const deep = (['params', 'query', 'body'] as const).find((part) => nestedDeeperThan(req[part], MAX_NESTING));
    if (deep) throw invalid([{ field: deep, message: `must not be nested more than ${MAX_NESTING} levels deep` }]);
    const nul = [...nulFields(req.params, 'params'), ...nulFields(req.query, 'query'), ...nulFields(req.body, 'body')];
    if (nul.length) throw invalid(nul.map((field) => ({ field, message: 'must not contain the NUL character' })));
    // Unknown properties are refused everywhere, so a body sent to a route that takes none is too.
    if (takesNoBody(req.routeOptions.schema) && hasContent(req.body))
      throw invalid([{ field: 'body', message: 'this route takes no body' }]);
    if (req.body && typeof req.body === 'object') req.body = trimStrings(req.body);
  });
}

/**
 * Deepest nesting of objects and arrays a request value may have (the value itself is level 1).
 * The deepest body any route takes is about 4 levels; a few thousand levels fit in a few
 * kilobytes of JSON and would exhaust the stack of any recursive walk.
 */
export const MAX_NESTING = 32;

// Iterative on purpose: it runs first, on values of any depth. Each object or array is looked at
// once at most, so the cost is bounded by the size of the body (1 MB).
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [v, depth] = next;
    if (v === null || typeof v !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(v))
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
  }
  return false;
}

const invalid = (details: ErrorDetail[]) => badRequest('VALIDATION_ERROR', 'The request is not valid', details);
// Upload routes read their multipart body themselves and answer 415 to anything else.
const takesNoBody = (schema: { body?: unknown; consumes?: readonly string[] } | undefined) =>
  !schema?.body && !schema?.consumes?.includes('multipart/form-data');
const hasContent = (body: unknown) =>
  body !== undefined && body !== null && (typeof body !== 'object' || Object.keys(body).length > 0);

// PostgreSQL text cannot hold U+0000; finding it here names the field instead of failing in SQL.
function nulFields(value: unknown, path: string): string[] {
  if (typeof value === 'string') return value.includes('\u0000') ? [path] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => nulFields(v, `${path}.${i}`));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => nulFields(v, `${path}.${k}`));
  return [];
}

// Passwords are taken exactly as typed; every other string is trimmed before validation.
function trimStrings(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return /password/i.test(key) ? value : value.trim();
  if (Array.isArray(value)) return value.map((v) => trimStrings(v));
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = trimStrings(v, k);
    return out;
  }
  return value;
}

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

const PART_NAMES: Record<string, string> = { querystring: 'query', params: 'params', body: 'body', headers: 'headers' };

/** Turns validator output into one entry per bad field: `body.phoneNumber`, `query.limit`. */
export function describeValidation(issues: AjvIssue[], context = 'body'): ErrorDetail[] {
  const prefix = PART_NAMES[context] ?? context;
  const seen = new Map<string, ErrorDetail>();
  for (const issue of issues) {
    if (issue.keyword === 'anyOf' || issue.keyword === 'oneOf' || issue.keyword === 'if') continue;
    let path = issue.instancePath.split('/').filter(Boolean).join('.');
    let message = issue.message ?? 'is not valid';
    if (issue.keyword === 'required') {
      path = [path, String(issue.params.missingProperty)].filter(Boolean).join('.');
      message = 'is required';
    } else if (issue.keyword === 'additionalProperties') {
      path = [path, String(issue.params.additionalProperty)].filter(Boolean).join('.');
      message = 'is not an allowed property';
    } else if (issue.keyword === 'const' || issue.keyword === 'enum') {
      const allowed = (issue.params.allowedValues as unknown[] | undefined) ?? [issue.params.allowedValue];
      message = `must be one of: ${allowed.join(', ')}`;
    } else if (issue.keyword === 'format' && issue.params.format === 'phone') {
      message = 'must be a valid international phone number such as +221771234567';
    }
    const field = path ? `${prefix}.${path}` : prefix;
    const existing = seen.get(field);
    // Unions report each branch; merge "must be one of" lists into one line per field.
    if (existing && issue.keyword === 'const' && existing.message.startsWith('must be one of: ')) {
      existing.message += `, ${String(issue.params.allowedValue)}`;
    } else if (!existing) {
      seen.set(field, { field, message });
    }
  }
  return [...seen.values()];
}
