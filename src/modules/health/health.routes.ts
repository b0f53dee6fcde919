import { Type } from 'typebox';
import { ping, type Db } from '../../db/client.js';
import type { App } from '../../http/types.js';
import { serviceUnavailable } from '../../shared/errors.js';
import { Ok, ok } from '../../shared/schemas.js';

const tags = ['health'];
const Status = Ok(Type.Object({ status: Type.String(), database: Type.Optional(Type.String()) }));

export function healthRoutes(db: Db, kind: string) {
  return async (app: App) => {
    app.get('/health', { config: { access: 'Public', rateLimit: false }, schema: { tags, summary: 'Liveness', response: { 200: Status } } },
      async () => ok({ status: 'ok' }));

    app.get('/health/ready', { config: { access: 'Public', rateLimit: false }, schema: { tags, summary: 'Readiness: the database answers', response: { 200: Status } } },
      async (req) => {
        try {
          await ping(db);
        } catch (err) {
          req.log.warn({ err }, 'database not reachable');
          throw serviceUnavailable('The database is not reachable');
        }
        return ok({ status: 'ready', database: kind });
      });
  };
}
