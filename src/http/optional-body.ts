import type { FastifyRequest } from 'fastify';

/**
 * preValidation hook for routes whose body has only optional fields: a request sent without a
 * body is validated as `{}`, so the body may be left out altogether.
 */
export const bodyMayBeEmpty = async (req: FastifyRequest) => {
  req.body ??= {};
};
