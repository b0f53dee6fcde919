import { Type, type Static, type TSchema } from 'typebox';

export const IdSchema = Type.String({ format: 'uuid', description: 'UUID (version 7)' });
export const IdParamsSchema = Type.Object({ id: IdSchema }, { additionalProperties: false });
export const PhoneSchema = Type.String({
  format: 'phone',
  maxLength: 20,
  description: 'International (E.164) phone number, e.g. +221771234567',
  examples: ['+221771234567'],
});
export const EmailSchema = Type.String({ format: 'email', maxLength: 254 });
export const TimestampSchema = Type.String({ format: 'date-time' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const PageQuerySchema = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 100_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});
export type PageQuery = Static<typeof PageQuerySchema>;

// A `title` names a schema in the OpenAPI document (`#/components/schemas/<title>`), and the
// types a client generator makes from it: give one to the views several routes share.
export const PageMetaSchema = Type.Object(
  { page: Type.Integer(), limit: Type.Integer(), total: Type.Integer(), totalPages: Type.Integer() },
  { title: 'PageMeta' },
);
export type PageMeta = Static<typeof PageMetaSchema>;

// The envelope of a named view is named after it: `UserResponse`, `UserPage`.
export const titleOf = (schema: TSchema, suffix: string) => {
  const title = (schema as { title?: unknown }).title;
  return typeof title === 'string' ? { title: `${title}${suffix}` } : {};
};
export const Ok = <T extends TSchema>(data: T) =>
  Type.Object({ success: Type.Literal(true), data }, titleOf(data, 'Response'));
export const OkPage = <T extends TSchema>(item: T) =>
  Type.Object({ success: Type.Literal(true), data: Type.Array(item), meta: PageMetaSchema }, titleOf(item, 'Page'));
export const MessageSchema = Type.Object({ message: Type.String() }, { title: 'Message' });

export const ErrorResponseSchema = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(
        Type.Array(Type.Object({ field: Type.String(), message: Type.String() }, { title: 'ErrorDetail' })),
      ),
    }),
    requestId: Type.String(),
  },
  { $id: 'ErrorResponse' },
);

export const ok = <T>(data: T) => ({ success: true as const, data });
export const okPage = <T>(data: T[], meta: PageMeta) => ({ success: true as const, data, meta });

export const pageOffset = (q: PageQuery) => (q.page - 1) * q.limit;
export const pageMeta = (q: PageQuery, total: number): PageMeta => ({
  page: q.page,
  limit: q.limit,
  total,
  totalPages: Math.ceil(total / q.limit),
});

/** A list's `sort`: a field ascending (`createdAt`), or descending after a minus (`-createdAt`). */
export type SortOf<F extends string> = F | `-${F}`;

/**
 * The `sort` query parameter of a list: each of `fields` ascending or, after a minus, descending.
 * The enum lists every value, so an unknown one is a 400 on `query.sort` naming them; the title
 * names its type in the OpenAPI document. `defaultOrder` is what the list does without it.
 */
export const SortQuerySchema = <const F extends readonly string[]>(title: string, fields: F, defaultOrder: string) =>
  Type.Optional(
    Type.Unsafe<SortOf<F[number]>>({
      type: 'string',
      enum: fields.flatMap((f) => [f, `-${f}`]),
      title,
      description: `a field ascending, or descending after a minus (-createdAt); empty values last, equal ones by id. Default: ${defaultOrder}`,
    }),
  );

/** A string limited to a list of values; validators report the list when it is not met. */
export const StringEnum = <const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
