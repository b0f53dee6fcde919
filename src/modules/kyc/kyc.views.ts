import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import { KYC_DOCUMENT_KINDS } from '../../db/schema/kyc.js';
import { listAdminActions } from '../audit/index.js';
import type { SuppliersApi } from '../suppliers/index.js';
import type { AttemptRecord, DocumentRecord } from './kyc.repository.js';
import type { AttemptDetailView, AttemptSummaryView, DecisionView, OwnAttemptView } from './kyc.schemas.js';

/** Links to KYC documents live this long: enough to open them, too short to pass around. */
export const DOCUMENT_LINK_TTL_SECONDS = 300;

type Profile = Pick<
  NonNullable<Awaited<ReturnType<SuppliersApi['findProfile']>>>,
  'id' | 'businessName' | 'kycStatus' | 'verificationStatus'
>;

const iso = (d: Date | null) => d?.toISOString() ?? null;

const byKind = (a: DocumentRecord, b: DocumentRecord) =>
  KYC_DOCUMENT_KINDS.indexOf(a.kind) - KYC_DOCUMENT_KINDS.indexOf(b.kind);

/** Identity document first, then the business document; each with a fresh signed link. */
export function documentLinks(ctx: AppContext, docs: DocumentRecord[]) {
  const now = ctx.clock.now();
  return [...docs].sort(byKind).map((d) => ({
    kind: d.kind,
    contentType: d.contentType,
    sizeBytes: d.sizeBytes,
    sha256: d.sha256,
    ...ctx.links.privateUrl(d.storageKey, now, DOCUMENT_LINK_TTL_SECONDS),
  }));
}

function attemptFields(a: AttemptRecord) {
  return {
    id: a.id,
    status: a.status,
    documentType: a.documentType,
    businessRegistrationNumber: a.businessRegistrationNumber,
    submittedAt: a.submittedAt.toISOString(),
    reviewedAt: iso(a.reviewedAt),
    reviewReason: a.reviewReason,
  };
}

/** What the supplier sees of its own attempt: no reviewer identity. */
export function toOwnAttemptView(ctx: AppContext, a: AttemptRecord, docs: DocumentRecord[]): OwnAttemptView {
  return {
    ...attemptFields(a),
    documents: documentLinks(
      ctx,
      docs.filter((d) => d.attemptId === a.id),
    ),
  };
}

export function toSummaryView(a: AttemptRecord, profile: Profile | undefined): AttemptSummaryView {
  return {
    ...attemptFields(a),
    supplierId: a.supplierId,
    submittedBy: a.submittedBy,
    reviewerId: a.reviewerId,
    supplier: profile
      ? {
          id: profile.id,
          businessName: profile.businessName,
          kycStatus: profile.kycStatus,
          verificationStatus: profile.verificationStatus,
        }
      : null,
  };
}

export async function toDetailView(
  ctx: AppContext,
  ex: Executor,
  a: AttemptRecord,
  profile: Profile | undefined,
  docs: DocumentRecord[],
): Promise<AttemptDetailView> {
  const actions = await listAdminActions(ex, 'kyc_attempt', a.id);
  const history: DecisionView[] = actions.reverse().map((x) => ({
    action: x.action,
    actorId: x.actorId,
    from: typeof x.data?.from === 'string' ? x.data.from : null,
    to: typeof x.data?.to === 'string' ? x.data.to : null,
    reason: x.reason,
    at: x.createdAt.toISOString(),
  }));
  return { ...toSummaryView(a, profile), documents: documentLinks(ctx, docs), history };
}
