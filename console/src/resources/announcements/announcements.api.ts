import { api, unwrap, unwrapPage, type Body, type Query, type Schema } from '../../api';
import { page, type ResourceApi } from '../resource-api';

export type Announcement = Schema<'Announcement'>;
export type AnnouncementRole = NonNullable<Announcement['role']>;
type NewAnnouncement = Body<'/api/v1/admin/announcements', 'post'>;

export const sendAnnouncement = (body: NewAnnouncement) => unwrap(api.POST('/api/v1/admin/announcements', { body }));

/**
 * The accounts an announcement would reach today, as the API counts them when sending starts:
 * active, phone verified, of the role when one is given (the users list's total, one row read).
 */
export async function reachableCount(role: AnnouncementRole | undefined): Promise<number> {
  const query: Query<'/api/v1/admin/users'> = { status: 'ACTIVE', verified: true, role, limit: 1 };
  return (await unwrapPage(api.GET('/api/v1/admin/users', { params: { query } }))).meta.total;
}

export const announcementsApis: Record<string, ResourceApi> = {
  announcements: {
    list: async ({ page: p, perPage }) => {
      const query: Query<'/api/v1/admin/announcements'> = { page: p, limit: perPage };
      return page(await unwrapPage(api.GET('/api/v1/admin/announcements', { params: { query } })));
    },
    one: async (id) => unwrap(api.GET('/api/v1/admin/announcements/{id}', { params: { path: { id } } })),
  },
};
