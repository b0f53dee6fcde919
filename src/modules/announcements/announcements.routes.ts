import type { App } from '../../http/types.js';
import { IdParamsSchema, Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import * as S from './announcements.schemas.js';
import type { AnnouncementsService } from './announcements.service.js';

const tags = ['admin: announcements'];
const adm = { access: 'ADM' } as const;

export function announcementsRoutes(announcements: AnnouncementsService) {
  return async (app: App) => {
    app.post(
      '/admin/announcements',
      {
        config: { ...adm, idempotency: true },
        schema: {
          tags,
          summary:
            'Send a message to every user or to one role: queued at once, sent in batches by a job (Idempotency-Key honoured)',
          body: S.AnnouncementBodySchema,
          response: { 202: Ok(S.AnnouncementSchema) },
        },
      },
      async (req, reply) => reply.code(202).send(ok(await announcements.create(req.user, req.body))),
    );

    app.get(
      '/admin/announcements',
      {
        config: adm,
        schema: {
          tags,
          summary: 'Announcements, newest first, with their progress',
          querystring: S.AnnouncementListQuerySchema,
          response: { 200: OkPage(S.AnnouncementSchema) },
        },
      },
      async (req) => {
        const r = await announcements.list(req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/admin/announcements/:id',
      {
        config: adm,
        schema: {
          tags,
          summary: 'One announcement: its status, recipients and how many were notified so far',
          params: IdParamsSchema,
          response: { 200: Ok(S.AnnouncementSchema) },
        },
      },
      async (req) => ok(await announcements.get(req.params.id)),
    );
  };
}
