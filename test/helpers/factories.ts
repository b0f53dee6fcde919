import { randomInt } from 'node:crypto';
import type { Role, UserStatus } from '../../src/db/schema/users.js';
import type { App } from '../../src/http/types.js';
import { uuidv7 } from '../../src/shared/ids.js';
import { hashPassword } from '../../src/shared/passwords.js';
import { supplierProfiles, type KycStatus, type OpeningHours } from '../../src/db/schema/suppliers.js';
import { subscriptionPlans } from '../../src/db/schema/subscriptions.js';
import { stores } from '../../src/db/schema/stores.js';

export const DEFAULT_PASSWORD = 'Correct-Horse-42';
let defaultHash: Promise<string> | undefined;

/** A valid mobile number from a space of 10^9, so parallel tests do not collide. */
export const uniquePhone = () => `+4917${randomInt(0, 10)}${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
export const uniqueEmail = (tag = 'user') => `${tag}-${uuidv7()}@example.test`;

export interface UserOptions {
  role?: Role;
  verified?: boolean;
  status?: UserStatus;
  password?: string;
  email?: string | null;
  firstName?: string;
  lastName?: string;
}

export async function createUser(app: App, opts: UserOptions = {}) {
  const password = opts.password ?? DEFAULT_PASSWORD;
  const passwordHash = opts.password
    ? await hashPassword(password)
    : await (defaultHash ??= hashPassword(DEFAULT_PASSWORD));
  const { users } = app.services;
  const user = await users.create(app.ctx.db, {
    phoneNumber: uniquePhone(),
    email: opts.email === undefined ? uniqueEmail() : opts.email,
    passwordHash,
    role: opts.role ?? 'CLIENT',
    firstName: opts.firstName ?? 'Test',
    lastName: opts.lastName ?? 'User',
    verified: opts.verified ?? true,
  });
  if (opts.status && opts.status !== 'ACTIVE') await users.update(app.ctx.db, user.id, { status: opts.status });
  return { ...user, password };
}

/** A user with a live session: `token` is its access token. */
export async function createSignedIn(app: App, opts: UserOptions = {}) {
  const user = await createUser(app, opts);
  const { accessToken, refreshToken } = await app.services.auth.signIn(user, {});
  return { user, token: accessToken, refreshToken };
}

export interface SupplierOptions extends UserOptions {
  verification?: 'PENDING' | 'VERIFIED' | 'REJECTED';
  businessName?: string;
  city?: string;
  latitude?: number;
  longitude?: number;
  kycStatus?: KycStatus;
  description?: string;
  openingHours?: OpeningHours;
  timezone?: string;
}

/**
 * A supplier user with a profile, written straight to the database (the profile endpoints have
 * their own tests); `token` is signed in.
 */
export async function createSupplier(app: App, opts: SupplierOptions = {}) {
  const role = opts.role ?? 'SUPPLIER_FOOD';
  const signedIn = await createSignedIn(app, { ...opts, role });
  const now = app.ctx.clock.now();
  const [profile] = await app.ctx.db
    .insert(supplierProfiles)
    .values({
      id: uuidv7(),
      userId: signedIn.user.id,
      businessName: opts.businessName ?? `Boulangerie ${uuidv7().slice(-6)}`,
      description: opts.description ?? 'Fresh bread and pastries at the end of the day',
      category: role === 'SUPPLIER_DEALS' ? 'DEALS' : 'FOOD',
      address: '12 Avenue Cheikh Anta Diop',
      city: opts.city ?? 'Dakar',
      latitude: opts.latitude ?? 14.6928,
      longitude: opts.longitude ?? -17.4467,
      verificationStatus: opts.verification ?? 'VERIFIED',
      verifiedAt: (opts.verification ?? 'VERIFIED') === 'VERIFIED' ? now : null,
      ...(opts.kycStatus && { kycStatus: opts.kycStatus }),
      ...(opts.openingHours && { openingHours: opts.openingHours }),
      ...(opts.timezone && { timezone: opts.timezone }),
      commissionRateBps: app.ctx.config.DEFAULT_COMMISSION_BPS,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return { ...signedIn, profile: profile! };
}

export interface PlanOptions {
  code?: string;
  /** null: unlimited. */
  maxProducts?: number | null;
  priceAmount?: number;
  /** Default: 30 for a paid plan, none for a free one. */
  periodDays?: number | null;
  isActive?: boolean;
  isPublic?: boolean;
  commissionDiscountBps?: number;
}

/** A subscription plan with a unique code (the FREE plan comes from the migrations). */
export async function createPlan(app: App, opts: PlanOptions = {}) {
  const now = app.ctx.clock.now();
  const code = opts.code ?? `PLAN_${uuidv7().slice(-12).toUpperCase()}`;
  const [plan] = await app.ctx.db
    .insert(subscriptionPlans)
    .values({
      id: uuidv7(),
      code,
      name: `Plan ${code}`,
      maxProducts: opts.maxProducts === undefined ? 50 : opts.maxProducts,
      priceAmount: opts.priceAmount ?? 0,
      currency: 'XOF',
      periodDays: opts.periodDays === undefined ? (opts.priceAmount ? 30 : null) : opts.periodDays,
      isActive: opts.isActive ?? true,
      isPublic: opts.isPublic ?? true,
      commissionDiscountBps: opts.commissionDiscountBps ?? 0,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return plan!;
}

/**
 * A store of the supplier (from `createSupplier`), written straight to the database: active,
 * open every day 00:00-24:00 in Dakar unless `overrides` say otherwise.
 */
export async function createStore(
  app: App,
  supplier: { profile: { id: string } },
  overrides: Partial<typeof stores.$inferInsert> = {},
) {
  const now = app.ctx.clock.now();
  const everyDay = Object.fromEntries(['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, ['00:00-24:00']]));
  const [store] = await app.ctx.db
    .insert(stores)
    .values({
      id: uuidv7(),
      supplierId: supplier.profile.id,
      name: `Store ${uuidv7().slice(-8)}`,
      description: 'Unsold bread and pastries every evening',
      address: '5 Rue Carnot',
      city: 'Dakar',
      latitude: 14.6708,
      longitude: -17.4381,
      openingHours: everyDay,
      timezone: 'Africa/Dakar',
      createdAt: now,
      updatedAt: now,
      ...overrides,
    })
    .returning();
  return store!;
}
