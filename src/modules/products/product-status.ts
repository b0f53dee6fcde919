import type { ProductStatus } from '../../db/schema/products.js';
import type { TransitionTable } from '../../shared/state-machine.js';

/**
 * Moderation and life of a product.
 * - PENDING_REVIEW -> ACTIVE | REJECTED: an administrator's decision. A new product starts ACTIVE
 *   instead when the `features.autoApproveVerifiedSupplierProducts` flag is on and its supplier is
 *   verified.
 * - REJECTED -> PENDING_REVIEW: the supplier edits it (any edit), which submits it again.
 * - ACTIVE -> PENDING_REVIEW: a substantial edit (name, description, category, pictures) goes back
 *   to review; price, stock and pickup changes do not.
 * - ACTIVE <-> INACTIVE: the supplier or an administrator takes it off the shelves and back.
 * - ACTIVE | INACTIVE -> EXPIRED: the expiry job, once expiresAt is past (public lists hide it from
 *   that second already, by the expiry condition). An edit giving a later expiry reopens it to review
 *   (EXPIRED -> PENDING_REVIEW) or, auto-approval on, to ACTIVE.
 * - any -> DELETED: the supplier or an administrator deletes it; terminal, kept for the records.
 */
export const PRODUCT_TRANSITIONS: TransitionTable<ProductStatus> = {
  PENDING_REVIEW: ['ACTIVE', 'REJECTED', 'EXPIRED', 'DELETED'],
  ACTIVE: ['PENDING_REVIEW', 'INACTIVE', 'EXPIRED', 'DELETED'],
  REJECTED: ['PENDING_REVIEW', 'DELETED'],
  INACTIVE: ['ACTIVE', 'PENDING_REVIEW', 'EXPIRED', 'DELETED'],
  EXPIRED: ['PENDING_REVIEW', 'ACTIVE', 'DELETED'],
  DELETED: [],
};

/** What an administrator may set with PATCH /admin/products/:id/status (approve/reject have their own routes). */
export const ADMIN_SETTABLE_STATUSES = ['ACTIVE', 'INACTIVE'] as const;

/** States that count against the supplier's plan limit (EXPIRED and DELETED free their slot). */
export const COUNTED_STATUSES: readonly ProductStatus[] = ['PENDING_REVIEW', 'ACTIVE', 'REJECTED', 'INACTIVE'];

/** What a supplier (PUT status) or an administrator (PATCH status) may switch by hand. */
export const STATUS_TOGGLE_TRANSITIONS: TransitionTable<ProductStatus> = {
  PENDING_REVIEW: [],
  ACTIVE: ['INACTIVE'],
  REJECTED: [],
  INACTIVE: ['ACTIVE'],
  EXPIRED: [],
  DELETED: [],
};

/** An administrator's moderation decision: only on a product waiting for one. */
export const MODERATION_TRANSITIONS: TransitionTable<ProductStatus> = {
  PENDING_REVIEW: ['ACTIVE', 'REJECTED'],
  ACTIVE: [],
  REJECTED: [],
  INACTIVE: [],
  EXPIRED: [],
  DELETED: [],
};
