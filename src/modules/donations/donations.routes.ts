import { transactionalKey } from '../../http/idempotency.js';
import { bodyMayBeEmpty } from '../../http/optional-body.js';
import type { App } from '../../http/types.js';
import { Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import * as S from './donations.schemas.js';
import type { DonationsService } from './donations.service.js';
import type { DocumentsService } from './documents.service.js';
import type { FinancialService } from './financial.service.js';

const tags = ['donations'];
const assocTags = ['associations'];
const auth = { access: 'Auth' } as const;
const sup = { access: 'SUP' } as const;
const own = { access: 'ASSOCIATION' } as const;

export function donationsRoutes(donations: DonationsService, financial: FinancialService, documents: DocumentsService) {
  return async (app: App) => {
    app.post(
      '/donations/financial',
      {
        config: { ...auth, idempotency: 'in-transaction' },
        schema: {
          tags,
          summary:
            'Give money to a verified association: pay at payment.redirectUrl; paid out to the association (Idempotency-Key honoured)',
          body: S.CreateFinancialBodySchema,
          errors: [404, 409],
          response: { 201: Ok(S.FinancialAnswerSchema) },
        },
      },
      async (req, reply) =>
        reply
          .code(201)
          .send(
            ok(
              await donations.financialAnswer(
                req.user,
                await financial.create(req.user, req.body, transactionalKey(req, reply)),
              ),
            ),
          ),
    );

    app.get(
      '/donations/my-stats',
      {
        config: auth,
        schema: {
          tags,
          summary: 'What the caller gave: donations, kg of food collected, amounts paid, and their impact',
          response: { 200: Ok(S.MyStatsSchema) },
        },
      },
      async (req) => ok(await donations.myStats(req.user)),
    );

    app.post(
      '/donations/:donationId/receipt',
      {
        config: auth,
        preValidation: bodyMayBeEmpty,
        schema: {
          tags,
          summary: 'The numbered PDF receipt of a paid financial donation (the same one each time), as a 5-minute link',
          params: S.DonationIdParamsSchema,
          errors: [404, 409],
          response: { 200: Ok(S.DocumentSchema) },
        },
      },
      async (req) => ok(await documents.receipt(req.user, req.params.donationId)),
    );

    app.post(
      '/donations/:donationId/certificate',
      {
        config: auth,
        preValidation: bodyMayBeEmpty,
        schema: {
          tags,
          summary:
            'The numbered PDF certificate of a collected food donation (the same one each time), as a 5-minute link',
          params: S.DonationIdParamsSchema,
          errors: [404, 409],
          response: { 200: Ok(S.DocumentSchema) },
        },
      },
      async (req) => ok(await documents.certificate(req.user, req.params.donationId)),
    );

    app.get(
      '/donations/verify/:code',
      {
        config: { access: 'Public', cache: 'directory' },
        schema: {
          tags,
          summary:
            'Check a receipt or certificate is genuine by its verification code (the donor is not named when anonymous)',
          params: S.VerifyParamsSchema,
          errors: [404],
          response: { 200: Ok(S.VerificationSchema) },
        },
      },
      async (req) => ok(await documents.verify(req.params.code)),
    );

    app.post(
      '/donations/food',
      {
        config: sup,
        schema: {
          tags,
          summary:
            'Give catalog products (taken from stock) and free-form items to a verified association, with a pickup window',
          body: S.CreateFoodBodySchema,
          errors: [404, 409],
          response: { 201: Ok(S.DonationDetailSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await donations.createFood(req.user, req.body))),
    );

    app.get(
      '/donations/my-donations',
      {
        config: auth,
        schema: {
          tags,
          summary: 'Donations made by the caller, newest first',
          querystring: S.ListQuerySchema,
          response: { 200: OkPage(S.DonationSchema) },
        },
      },
      async (req) => {
        const r = await donations.mine(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/donations/:donationId',
      {
        config: auth,
        schema: {
          tags,
          summary: 'One donation, to its donor or its association, with its history',
          params: S.DonationIdParamsSchema,
          errors: [404],
          response: { 200: Ok(S.DonationDetailSchema) },
        },
      },
      async (req) => ok(await donations.get(req.user, req.params.donationId)),
    );

    app.post(
      '/donations/:donationId/cancel',
      {
        config: auth,
        preValidation: bodyMayBeEmpty,
        schema: {
          tags,
          summary: 'The donor cancels before collection; catalog units go back to stock',
          params: S.DonationIdParamsSchema,
          body: S.ReasonBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.DonationDetailSchema) },
        },
      },
      async (req) => ok(await donations.cancel(req.user, req.params.donationId, req.body.reason)),
    );

    app.post(
      '/donations/:donationId/schedule-pickup',
      {
        config: own,
        schema: {
          tags,
          summary: 'The association sets (or moves) the pickup time within the window of an accepted donation',
          params: S.DonationIdParamsSchema,
          body: S.SchedulePickupBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.DonationDetailSchema) },
        },
      },
      async (req) => ok(await donations.schedulePickup(req.user, req.params.donationId, req.body)),
    );

    app.post(
      '/donations/:donationId/confirm-pickup',
      {
        config: own,
        schema: {
          tags,
          summary: 'The association confirms it collected the donation',
          params: S.DonationIdParamsSchema,
          errors: [404, 409],
          response: { 200: Ok(S.DonationDetailSchema) },
        },
      },
      async (req) => ok(await donations.confirmPickup(req.user, req.params.donationId)),
    );

    app.patch(
      '/donations/:donationId/status',
      {
        config: auth,
        schema: {
          tags,
          summary:
            "Move a donation along its states, as far as the caller's part allows (association: accept, decline, schedule, collect; donor: cancel)",
          params: S.DonationIdParamsSchema,
          body: S.StatusBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.DonationDetailSchema) },
        },
      },
      async (req) => ok(await donations.setStatus(req.user, req.params.donationId, req.body)),
    );

    app.get(
      '/associations/donations',
      {
        config: own,
        schema: {
          tags: assocTags,
          summary: 'Donations received, newest first',
          querystring: S.ListQuerySchema,
          errors: [404],
          response: { 200: OkPage(S.DonationSchema) },
        },
      },
      async (req) => {
        const r = await donations.received(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/associations/donations/pending-pickups',
      {
        config: own,
        schema: {
          tags: assocTags,
          summary: 'Accepted donations still to collect, the next pickup first',
          querystring: S.PageOnlyQuerySchema,
          errors: [404],
          response: { 200: OkPage(S.DonationSchema) },
        },
      },
      async (req) => {
        const r = await donations.pendingPickups(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/associations/donations/stats',
      {
        config: own,
        schema: {
          tags: assocTags,
          summary: 'Donations received and collected: by state, by month, kg and impact',
          querystring: S.StatsQuerySchema,
          errors: [404],
          response: { 200: Ok(S.AssociationStatsSchema) },
        },
      },
      async (req) => ok(await donations.associationStats(req.user, req.query.months)),
    );
  };
}
