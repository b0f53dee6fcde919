type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

// Where JSON Schema keeps subschemas; anything else (enum, default, examples) is data.
const ONE = [
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
];
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];

export interface OpenApiDoc {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, unknown> } & Json;
}

/**
 * Gives every schema that carries a `title` one entry in `components.schemas` under that title,
 * and puts a `$ref` wherever it appeared. Routes inline their TypeBox schemas; the title is how a
 * schema says "I am the shared `User` view" (code generators name their types after it). Two
 * different shapes under one title are a mistake in the schemas, reported here rather than
 * published as one of them.
 */
export function nameSchemas(doc: OpenApiDoc): void {
  const components = ((doc.components ??= {}).schemas ??= {});
  const seen = new Map<string, string>();

  const visit = (schema: unknown, root = false): unknown => {
    if (!isObject(schema)) return schema;
    for (const k of ONE) if (k in schema) schema[k] = visit(schema[k]);
    for (const k of LIST) if (Array.isArray(schema[k])) schema[k] = (schema[k] as unknown[]).map((s) => visit(s));
    for (const k of MAP) {
      const map = schema[k];
      if (isObject(map)) for (const name of Object.keys(map)) map[name] = visit(map[name]);
    }
    const title = schema.title;
    if (root || typeof title !== 'string') return schema;
    const json = JSON.stringify(schema);
    const before = seen.get(title);
    if (before === undefined && title in components)
      throw new Error(`OpenAPI: the schema title "${title}" is already a component name`);
    if (before !== undefined && before !== json)
      throw new Error(`OpenAPI: two different schemas are titled "${title}"`);
    seen.set(title, json);
    components[title] = schema;
    return { $ref: `#/components/schemas/${encodeURIComponent(title)}` };
  };

  const visitMedia = (content: unknown) => {
    if (isObject(content))
      for (const media of Object.values(content)) if (isObject(media)) media.schema = visit(media.schema);
  };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      if (!isObject(op)) continue;
      for (const p of (op.parameters as Json[] | undefined) ?? []) p.schema = visit(p.schema);
      if (isObject(op.requestBody)) visitMedia(op.requestBody.content);
      for (const res of Object.values((op.responses as Json | undefined) ?? {})) {
        if (!isObject(res)) continue;
        visitMedia(res.content);
        if (isObject(res.headers))
          for (const h of Object.values(res.headers)) if (isObject(h)) h.schema = visit(h.schema);
      }
    }
  }
  // Components found inside other components (and inside the shared schemas) are named too.
  for (const name of Object.keys(components)) visit(components[name], true);
}
