import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import { donationDocumentCounters, donationDocuments, type DonationDocumentKind } from '../../db/schema/donations.js';
import type { AuthUser } from '../../http/access.js';
import { conflict, notFound } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import type { AssociationsApi } from '../associations/index.js';
import type { UsersApi } from '../users/index.js';
import * as repo from './donations.repository.js';
import type { DonationRecord } from './donations.repository.js';
import { renderDocument } from './documents.pdf.js';

/** Signed links to a stored document last 5 minutes (as KYC documents' do). */
export const DOCUMENT_LINK_TTL_SECONDS = 300;
const PREFIX: Record<DonationDocumentKind, string> = { RECEIPT: 'REC', CERTIFICATE: 'CERT' };
// Unambiguous letters and digits (no 0/O, 1/I/L): a code typed from paper.
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

export interface DocumentsDeps {
  associations: AssociationsApi;
  users: UsersApi;
}

type DocumentRecord = typeof donationDocuments.$inferSelect;

export type DocumentsService = ReturnType<typeof createDocumentsService>;

function newCode(): string {
  const bytes = randomBytes(12);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return `${out.slice(0, 4)}-${out.slice(4, 8)}-${out.slice(8, 12)}`;
}

/**
 * Receipts of paid financial donations and certificates of collected food donations: one per
 * donation and kind, numbered without gaps per (kind, year), stored privately, handed out as signed
 * links, and verifiable by their code.
 */
export function createDocumentsService(ctx: AppContext, deps: DocumentsDeps) {
  const now = () => ctx.clock.now();

  const findDoc = async (
    ex: Executor,
    donationId: string,
    kind: DonationDocumentKind,
  ): Promise<DocumentRecord | undefined> =>
    (
      await ex
        .select()
        .from(donationDocuments)
        .where(and(eq(donationDocuments.donationId, donationId), eq(donationDocuments.kind, kind)))
        .limit(1)
    )[0];

  /** The next number of (kind, year): the counter row is created or bumped under its row lock, held until commit. */
  async function nextSequence(tx: Executor, kind: DonationDocumentKind, year: number): Promise<number> {
    const [row] = await tx
      .insert(donationDocumentCounters)
      .values({ kind, year, last: 1 })
      .onConflictDoUpdate({
        target: [donationDocumentCounters.kind, donationDocumentCounters.year],
        set: { last: sql`${donationDocumentCounters.last} + 1` },
      })
      .returning({ last: donationDocumentCounters.last });
    return row!.last;
  }

  const donorName = async (ex: Executor, d: DonationRecord) => {
    if (d.anonymous) return 'anonymous';
    const u = await deps.users.findById(d.donorUserId, ex);
    const name = `${u?.firstName ?? ''} ${u?.lastName ?? ''}`.trim();
    return name || u?.email || 'donor';
  };

  const toView = (doc: DocumentRecord) => ({
    number: doc.number,
    kind: doc.kind,
    verificationCode: doc.code,
    donationId: doc.donationId,
    issuedAt: doc.issuedAt.toISOString(),
    sizeBytes: doc.sizeBytes,
    ...ctx.links.privateUrl(doc.storageKey, now(), DOCUMENT_LINK_TTL_SECONDS),
  });

  async function issue(user: AuthUser, donationId: string, kind: DonationDocumentKind) {
    const found = await repo.find(ctx.db, donationId);
    if (!found) throw notFound('Donation');
    const association = await deps.associations.findById(found.associationId);
    if (found.donorUserId !== user.id && association?.userId !== user.id) throw notFound('Donation');
    if (kind === 'RECEIPT' && (found.kind !== 'FINANCIAL' || found.status !== 'PAID')) {
      throw conflict('DOCUMENT_NOT_AVAILABLE', 'A receipt is issued for a paid financial donation only');
    }
    if (kind === 'CERTIFICATE' && (found.kind !== 'FOOD' || found.status !== 'COLLECTED')) {
      throw conflict('DOCUMENT_NOT_AVAILABLE', 'A certificate is issued for a collected food donation only');
    }
    const existing = await findDoc(ctx.db, donationId, kind);
    if (existing) return toView(existing);
    const doc = await ctx.db.transaction(async (tx) => {
      // The donation's lock makes a second request for the same document wait and find the first one.
      const d = (await repo.find(tx, donationId, true))!;
      const again = await findDoc(tx, donationId, kind);
      if (again) return again;
      const issuedAt = now();
      const year = issuedAt.getUTCFullYear();
      const sequence = await nextSequence(tx, kind, year);
      const number = `${PREFIX[kind]}-${year}-${String(sequence).padStart(6, '0')}`;
      const code = newCode();
      const items = kind === 'CERTIFICATE' ? await repo.itemsOf(tx, [d.id]) : [];
      const pdf = await renderDocument({
        kind,
        number,
        code,
        issuedAt,
        donatedAt: kind === 'RECEIPT' ? d.paidAt! : d.collectedAt!,
        donor: await donorName(tx, d),
        association: {
          name: association!.name,
          registrationNumber: association!.registrationNumber,
          city: association!.city,
        },
        amount: kind === 'RECEIPT' ? { value: d.amount!, currency: d.currency! } : null,
        items: items.map((i) => ({ name: i.name, quantity: i.quantity, weightGrams: i.quantity * i.unitWeightGrams })),
        weightKg: kind === 'CERTIFICATE' ? (d.totalWeightGrams ?? 0) / 1000 : null,
        verifyUrl: `${ctx.config.PUBLIC_BASE_URL}/api/v1/donations/verify/${code}`,
      });
      const storageKey = `donations/${d.id}/${kind.toLowerCase()}-${number.toLowerCase()}.pdf`;
      await ctx.storage.put('private', storageKey, pdf, 'application/pdf');
      const [row] = await tx
        .insert(donationDocuments)
        .values({
          id: uuidv7(issuedAt.getTime()),
          donationId: d.id,
          kind,
          year,
          sequence,
          number,
          code,
          storageKey,
          sizeBytes: pdf.length,
          issuedAt,
        })
        .returning();
      return row!;
    });
    return toView(doc);
  }

  return {
    receipt: (user: AuthUser, donationId: string) => issue(user, donationId, 'RECEIPT'),
    certificate: (user: AuthUser, donationId: string) => issue(user, donationId, 'CERTIFICATE'),

    /** Anyone holding a document checks it is genuine; the donor is named only if it agreed to be. */
    async verify(code: string) {
      const [doc] = await ctx.db
        .select()
        .from(donationDocuments)
        .where(eq(donationDocuments.code, code.trim().toUpperCase()))
        .limit(1);
      if (!doc) throw notFound('Document');
      const d = (await repo.find(ctx.db, doc.donationId))!;
      const association = (await deps.associations.findById(d.associationId))!;
      return {
        valid: true as const,
        number: doc.number,
        kind: doc.kind,
        issuedAt: doc.issuedAt.toISOString(),
        donatedAt: (doc.kind === 'RECEIPT' ? d.paidAt! : d.collectedAt!).toISOString(),
        association: { id: association.id, name: association.name },
        donor: await donorName(ctx.db, d),
        amount: doc.kind === 'RECEIPT' ? d.amount : null,
        currency: doc.kind === 'RECEIPT' ? d.currency : null,
        weightKg: doc.kind === 'CERTIFICATE' ? (d.totalWeightGrams ?? 0) / 1000 : null,
      };
    },
  };
}
