import { createHash } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { AuthUser } from '../../http/access.js';
import type { UploadedFile } from '../../http/uploads.js';
import { AppError, conflict, notFound, validationError } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { RANKED_CANDIDATES_CAP, assertListingPage } from '../../listings/index.js';
import { normalizeEmail, normalizePhone } from '../../shared/phone.js';
import { pageMeta, pageOffset, type PageQuery } from '../../shared/schemas.js';
import { assertTransition } from '../../shared/state-machine.js';
import { ASSOCIATION_TRANSITIONS } from './association-status.js';
import * as search from './associations-search.repository.js';
import * as figures from './associations.figures.js';
import * as repo from './associations.repository.js';
import type { AssociationRecord, NewAssociation } from './associations.repository.js';
import type {
  CreateReportBody,
  NearbyQuery,
  RegisterBody,
  SearchQuery,
  UpdateBody,
  VerifiedQuery,
} from './associations.schemas.js';
import { parseDocument, parseReportPdf } from './associations.uploads.js';
import { toOwnView, toPublicView, toReportView } from './associations.views.js';

/** Documents an association may keep at once. */
export const MAX_DOCUMENTS = 10;

type Upload = { files: UploadedFile[]; fields: Record<string, string> };

export type AssociationsService = ReturnType<typeof createAssociationsService>;

export function createAssociationsService(ctx: AppContext) {
  const now = () => ctx.clock.now();

  async function ownView(ex: Executor, r: AssociationRecord) {
    return toOwnView(r, await repo.listDocuments(ex, r.id), true, ctx.links, now());
  }

  async function requireOwn(userId: string, ex: Executor = ctx.db) {
    const r = await repo.findByUser(ex, userId);
    if (!r) throw profileRequired();
    return r;
  }

  async function lockOwn(tx: Executor, userId: string) {
    const r = await repo.lock(tx, { userId });
    if (!r) throw profileRequired();
    return r;
  }

  /** Contact fields in their stored form. */
  function stored(body: RegisterBody | UpdateBody): Partial<NewAssociation> {
    const out = { ...body } as Partial<NewAssociation>;
    if (body.contactPhone) out.contactPhone = normalizePhone(body.contactPhone, 'body.contactPhone');
    if (body.payoutPhone) out.payoutPhone = normalizePhone(body.payoutPhone, 'body.payoutPhone');
    if (body.contactEmail) out.contactEmail = normalizeEmail(body.contactEmail);
    return out;
  }

  /** A change by the association; a rejected one is submitted again for review. */
  function editPatch(r: AssociationRecord, patch: Partial<NewAssociation>): Partial<NewAssociation> {
    const at = now();
    const out: Partial<NewAssociation> = { ...patch, updatedAt: at };
    if (r.status === 'REJECTED') {
      assertTransition(ASSOCIATION_TRANSITIONS, r.status, 'PENDING', 'Association verification');
      Object.assign(out, { status: 'PENDING', rejectionReason: null, submittedAt: at });
    }
    return out;
  }

  /** Puts the file first; the row is written only once it landed, and the file goes if the row is not written. */
  async function withStoredFile<T>(key: string, file: UploadedFile, write: () => Promise<T>): Promise<T> {
    await ctx.storage.put('private', key, file.body, file.contentType);
    try {
      return await write();
    } catch (err) {
      await ctx.storage.discard('private', [key]);
      throw err;
    }
  }

  async function requirePublic(id: string, ex: Executor = ctx.db) {
    const r = await repo.findPublic(ex, id);
    if (!r) throw notFound('Association');
    return r;
  }

  return {
    /** Dashboard and impact figures from this module's own tables (docs/analytics.md). */
    figures,
    // ---- for other modules

    /** The association of a signed-in ASSOCIATION user, or 404 ASSOCIATION_PROFILE_REQUIRED. */
    requireOwn,
    /** A verified association of an active account (what donations may be given to), or 404. */
    requirePublic,
    findById: (id: string, ex: Executor = ctx.db) => repo.findById(ex, id),

    // ---- the association

    async register(user: AuthUser, body: RegisterBody) {
      const at = now();
      const row = await ctx.db.transaction(async (tx) => {
        if (await repo.findByUser(tx, user.id)) {
          throw conflict(
            'ALREADY_EXISTS',
            'You already registered your association; change it with PUT /associations/me',
          );
        }
        return repo.insert(tx, {
          ...(stored(body) as Omit<NewAssociation, 'id'>),
          id: uuidv7(at.getTime()),
          userId: user.id,
          mission: body.mission ?? '',
          status: 'PENDING',
          submittedAt: at,
          createdAt: at,
          updatedAt: at,
        });
      });
      return ownView(ctx.db, row);
    },

    getOwn: async (user: AuthUser) => ownView(ctx.db, await requireOwn(user.id)),

    async update(user: AuthUser, body: UpdateBody) {
      const patch = stored(body);
      return ctx.db.transaction(async (tx) => {
        const r = await lockOwn(tx, user.id);
        const row = await repo.update(tx, r.id, editPatch(r, patch));
        // Payouts waiting for a number, or refused for the old one, leave again to the new one.
        if (row.payoutPhone && row.payoutPhone !== r.payoutPhone)
          await ctx.events.publish(tx, 'associations.payout_phone_changed', { associationId: r.id, userId: r.userId });
        return ownView(tx, row);
      });
    },

    async addDocument(user: AuthUser, upload: Upload) {
      const { kind, file } = parseDocument(upload);
      const current = await requireOwn(user.id);
      const key = `associations/${current.id}/documents/${uuidv7()}.${file.ext}`;
      return withStoredFile(key, file, () =>
        ctx.db.transaction(async (tx) => {
          const r = await lockOwn(tx, user.id);
          if ((await repo.countDocuments(tx, r.id)) >= MAX_DOCUMENTS) {
            throw new AppError(
              422,
              'TOO_MANY_FILES',
              `An association keeps at most ${MAX_DOCUMENTS} documents; delete one first`,
            );
          }
          const at = now();
          await repo.insertDocument(tx, {
            id: uuidv7(at.getTime()),
            associationId: r.id,
            kind,
            storageKey: key,
            contentType: file.contentType,
            sizeBytes: file.body.length,
            sha256: createHash('sha256').update(file.body).digest('hex'),
            createdAt: at,
          });
          return ownView(tx, await repo.update(tx, r.id, editPatch(r, {})));
        }),
      );
    },

    async removeDocument(user: AuthUser, documentId: string) {
      return ctx.db.transaction(async (tx) => {
        const r = await lockOwn(tx, user.id);
        const doc = await repo.deleteDocument(tx, r.id, documentId);
        if (!doc) throw notFound('Document');
        await ctx.storage.deleteLater(tx, 'private', [doc.storageKey]);
        return ownView(tx, await repo.update(tx, r.id, { updatedAt: now() }));
      });
    },

    async createReport(user: AuthUser, body: CreateReportBody) {
      if (body.periodEnd < body.periodStart) throw validationError('body.periodEnd', 'must be on or after periodStart');
      const r = await requireOwn(user.id);
      const at = now();
      const row = await repo.insertReport(ctx.db, {
        id: uuidv7(at.getTime()),
        associationId: r.id,
        title: body.title,
        periodStart: body.periodStart,
        periodEnd: body.periodEnd,
        body: body.body,
        mealsServed: body.mealsServed ?? null,
        peopleHelped: body.peopleHelped ?? null,
        createdAt: at,
        updatedAt: at,
      });
      return toReportView(row, ctx.links, at);
    },

    /** Attaches (or replaces) the report's PDF; the old file goes once the change is saved. */
    async attachReportPdf(user: AuthUser, reportId: string, upload: Upload) {
      const file = parseReportPdf(upload);
      const r = await requireOwn(user.id);
      if (!(await repo.findReport(ctx.db, r.id, reportId))) throw notFound('Report');
      const key = `associations/${r.id}/reports/${uuidv7()}.pdf`;
      const row = await withStoredFile(key, file, () =>
        ctx.db.transaction(async (tx) => {
          const report = await repo.findReport(tx, r.id, reportId, true);
          if (!report) throw notFound('Report');
          if (report.pdfKey) await ctx.storage.deleteLater(tx, 'private', [report.pdfKey]);
          return repo.updateReport(tx, report.id, { pdfKey: key, pdfSizeBytes: file.body.length, updatedAt: now() });
        }),
      );
      return toReportView(row, ctx.links, now());
    },

    async ownReports(user: AuthUser, q: PageQuery) {
      const r = await requireOwn(user.id);
      const { items, total } = await repo.listReports(ctx.db, r.id, { limit: q.limit, offset: pageOffset(q) });
      const at = now();
      return { items: items.map((x) => toReportView(x, ctx.links, at)), meta: pageMeta(q, total) };
    },

    // ---- the public

    getPublic: async (id: string) => toPublicView(await requirePublic(id)),

    async publicReports(id: string, q: PageQuery) {
      await requirePublic(id);
      const { items, total } = await repo.listReports(ctx.db, id, { limit: q.limit, offset: pageOffset(q) });
      const at = now();
      return { items: items.map((x) => toReportView(x, ctx.links, at)), meta: pageMeta(q, total) };
    },

    search: (q: SearchQuery) => {
      const sort = q.sort ?? (q.q ? 'relevance' : 'name');
      assertListingPage(q, q.q && sort === 'relevance' ? RANKED_CANDIDATES_CAP : undefined);
      return ctx.listings.get('associations.search', q, async () => {
        const { items, meta } = await search.searchPublic(ctx.db, { ...q, sort }, q);
        return { items: items.map(toPublicView), meta };
      });
    },

    verified: (q: VerifiedQuery) => {
      assertListingPage(q);
      return ctx.listings.get('associations.verified', q, async () => {
        const { items, meta } = await search.searchPublic(
          ctx.db,
          { city: q.city, category: q.category, sort: q.sort ?? 'name' },
          q,
        );
        return { items: items.map(toPublicView), meta };
      });
    },

    nearby: (q: NearbyQuery) => {
      assertListingPage(q);
      return ctx.listings.get('associations.nearby', q, async () => {
        const filter = {
          latitude: q.latitude,
          longitude: q.longitude,
          radiusM: q.radiusKm * 1000,
          category: q.category,
        };
        const { items, meta } = await search.nearbyPublic(ctx.db, filter, q);
        return {
          items: items.map((x) => ({ ...toPublicView(x.row), distanceKm: Math.round(x.distanceM) / 1000 })),
          meta,
        };
      });
    },
  };
}

const profileRequired = () =>
  new AppError(404, 'ASSOCIATION_PROFILE_REQUIRED', 'Register your association first (POST /associations/register)');
