import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { databaseError, isDatabaseUnavailable } from '../db/errors.js';
import { AppError, type ErrorDetail } from '../shared/errors.js';
import { createDatabaseOutage, OUTAGE_RETRY_AFTER_S } from './database-outage.js';
import { describeValidation } from './validation.js';

interface Failure {
  status: number;
  code: string;
  message: string;
  details?: ErrorDetail[];
}

// PostgreSQL error classes that come from the input rather than from the server.
const PG_FAILURES: Record<string, Failure> = {
  '23505': { status: 409, code: 'ALREADY_EXISTS', message: 'A record with these values already exists' },
  '23503': { status: 409, code: 'CONFLICT', message: 'The record is referenced by, or refers to, another record' },
  '22P02': { status: 400, code: 'VALIDATION_ERROR', message: 'A value has the wrong format' },
  '22003': { status: 400, code: 'VALIDATION_ERROR', message: 'A number is out of range' },
  '22001': { status: 400, code: 'VALIDATION_ERROR', message: 'A text value is too long' },
  '40001': { status: 409, code: 'CONFLICT', message: 'The record changed at the same time; try again' },
  '40P01': { status: 409, code: 'CONFLICT', message: 'The record changed at the same time; try again' },
};

const FASTIFY_FAILURES: Record<string, Failure> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'The request body is too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported content type' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'VALIDATION_ERROR', message: 'The JSON body is empty' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'VALIDATION_ERROR', message: 'The body is not valid JSON' },
  FST_REQ_FILE_TOO_LARGE: { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'A file is larger than 5 MB' },
  FST_PARTS_LIMIT: { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'Too many parts in the form' },
  FST_FIELDS_LIMIT: { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'Too many fields in the form' },
  FST_INVALID_MULTIPART_CONTENT_TYPE: {
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Send multipart/form-data',
  },
};

const pgCode = (err: unknown) => databaseError(err)?.code;

// Class 22 is "data exception": the value sent cannot be stored or compared as it is.
function pgFailure(code: string | undefined): Failure | undefined {
  if (!code) return undefined;
  return (
    PG_FAILURES[code] ??
    (code.startsWith('22') ? { status: 400, code: 'VALIDATION_ERROR', message: 'A value is not valid' } : undefined)
  );
}

function classify(err: FastifyError & { validationContext?: string }): Failure | undefined {
  if (err instanceof AppError)
    return { status: err.statusCode, code: err.code, message: err.message, details: err.details };
  if (err.validation) {
    return {
      status: 400,
      code: 'VALIDATION_ERROR',
      message: 'The request is not valid',
      details: describeValidation(err.validation as never, err.validationContext),
    };
  }
  const known = FASTIFY_FAILURES[err.code] ?? pgFailure(pgCode(err));
  if (known) return known;
  if (err instanceof SyntaxError && err.statusCode === 400) return FASTIFY_FAILURES.FST_ERR_CTP_INVALID_JSON_BODY;
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return {
      status: err.statusCode,
      code: err.statusCode === 429 ? 'RATE_LIMITED' : 'BAD_REQUEST',
      message: err.message,
    };
  }
  return undefined;
}

export function sendError(reply: FastifyReply, req: FastifyRequest, f: Failure): FastifyReply {
  const error: Record<string, unknown> = { code: f.code, message: f.message };
  if (f.details?.length) error.details = f.details;
  return reply.code(f.status).type('application/json').send({ success: false, error, requestId: req.id });
}

const UNAVAILABLE: Failure = {
  status: 503,
  code: 'SERVICE_UNAVAILABLE',
  message: 'The database cannot be reached; try again shortly',
};

/** `pingDatabase` tells when a database outage ends (called only during one). */
export function installErrorHandling(app: FastifyInstance, pingDatabase: () => Promise<unknown>): void {
  const outage = createDatabaseOutage(app.log, pingDatabase);
  app.addHook('onClose', async () => outage.stop());
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (!(err instanceof AppError) && isDatabaseUnavailable(err)) {
      // Logged once per outage, not once per request.
      outage.failed(err);
      return sendError(reply.header('retry-after', String(OUTAGE_RETRY_AFTER_S)), req, UNAVAILABLE);
    }
    const failure = classify(err);
    if (err instanceof AppError && err.headers) reply.headers(err.headers);
    if (failure) {
      if (failure.status >= 500) req.log.error({ err }, 'request failed');
      return sendError(reply, req, failure);
    }
    req.log.error({ err }, 'unhandled error');
    return sendError(reply, req, { status: 500, code: 'INTERNAL_ERROR', message: 'Something went wrong on our side' });
  });
  app.setNotFoundHandler((req, reply) =>
    sendError(reply, req, {
      status: 404,
      code: 'ROUTE_NOT_FOUND',
      message: `No route ${req.method} ${req.url.split('?')[0]}`,
    }),
  );
}

const DRIVER_FIELDS = ['code', 'severity', 'table', 'column', 'constraint', 'routine'] as const;

/**
 * Log form of an error. A failed query's message carries its parameters (password hashes, phone
 * numbers, emails) and the driver's `detail` repeats the offending values, so both are left out:
 * the statement, the SQLSTATE and the constraint are enough to find the cause.
 */
export function errorForLog(
  err: Error,
  depth = 0,
): { [key: string]: unknown; type: string; message: string; stack: string } {
  const e = err as Error & Record<string, unknown>;
  const message = typeof e.query === 'string' && Array.isArray(e.params) ? `Failed query: ${e.query}` : e.message;
  const stack = (e.stack ?? '').replace(e.message, message);
  const out = { type: e.constructor.name, message, stack } as ReturnType<typeof errorForLog>;
  for (const k of DRIVER_FIELDS) if (e[k] !== undefined) out[k] = e[k];
  if (e instanceof AppError) out.details = e.details;
  if (e.cause instanceof Error && depth < 3) out.cause = errorForLog(e.cause, depth + 1);
  return out;
}
