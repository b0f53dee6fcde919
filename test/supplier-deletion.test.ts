import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { supplierProfiles } from '../src/db/schema/suppliers.js';
import { postMultipart, validParts } from '../src/modules/kyc/kyc.test-support.js';
import { invitationCodeFromSms } from '../src/modules/staff/staff.test-support.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSignedIn, createStore, createSupplier } from './helpers/factories.js';
import { call } from './helpers/http.js';

// What a supplier leaves behind when it deletes its profile: its stores' invitations and teams,
// and its KYC attempts, must stop being offered, listed or decided.

let t: TestApp;
let admin: Awaited<ReturnType<typeof createSignedIn>>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await createSignedIn(t.app, { role: 'ADMIN' });
});
afterAll(() => t.close());

/** Invites `person` by phone to the store and returns the code from the SMS. */
async function invite(
  owner: { token: string },
  storeId: string,
  person: { user: { phoneNumber: string | null } },
  role = 'STAFF',
) {
  const phone = person.user.phoneNumber!;
  const before = t.sms.count(phone);
  const res = await call(t.app, 'POST', `/staff/stores/${storeId}/invite`, {
    token: owner.token,
    body: { phoneNumber: phone, role },
  });
  expect(res.status).toBe(201);
  return invitationCodeFromSms(t, phone, before);
}

/** A supplier with a store, a member of the store, someone with a pending invitation, and a pending KYC attempt. */
async function supplierWithLooseEnds() {
  const owner = await createSupplier(t.app, { verification: 'PENDING' });
  const store = await createStore(t.app, owner);
  const memberPerson = await createSignedIn(t.app);
  const accepted = await call(
    t.app,
    'POST',
    `/staff/invitations/${await invite(owner, store.id, memberPerson)}/accept`,
    { token: memberPerson.token },
  );
  expect(accepted.status).toBe(200);
  const invited = await createSignedIn(t.app);
  const code = await invite(owner, store.id, invited, 'MANAGER');
  const kyc = await postMultipart(t.app, '/suppliers/profile/kyc', owner.token, await validParts());
  expect(kyc.status).toBe(201);
  const attemptId: string = kyc.body.data.id;

  // Everything is there before the deletion.
  expect((await call(t.app, 'GET', '/staff/invitations', { token: invited.token })).body.data).toHaveLength(1);
  expect((await call(t.app, 'GET', '/staff/my-stores', { token: memberPerson.token })).body.data).toHaveLength(1);
  expect((await call(t.app, 'GET', `/staff/stores/${store.id}/my-role`, { token: memberPerson.token })).status).toBe(
    200,
  );
  expect(await pendingIds('/admin/kyc/pending')).toContain(attemptId);
  return { owner, store, memberPerson, invited, code, attemptId };
}

async function pendingIds(url: string): Promise<string[]> {
  const res = await call(t.app, 'GET', url, { token: admin.token, query: { limit: 100 } });
  expect(res.status).toBe(200);
  return res.body.data.map((a: { id: string }) => a.id);
}

/** What must hold once the supplier is gone, whichever way its leftovers were closed. */
async function expectNothingLeft(s: Awaited<ReturnType<typeof supplierWithLooseEnds>>) {
  expect((await call(t.app, 'GET', '/staff/invitations', { token: s.invited.token })).body).toMatchObject({
    data: [],
    meta: { total: 0 },
  });
  expect((await call(t.app, 'GET', '/staff/my-stores', { token: s.memberPerson.token })).body).toMatchObject({
    data: [],
    meta: { total: 0 },
  });
  const role = await call(t.app, 'GET', `/staff/stores/${s.store.id}/my-role`, { token: s.memberPerson.token });
  expect(role.status).toBe(404);
  expect(await pendingIds('/admin/kyc/pending')).not.toContain(s.attemptId);
  expect(await pendingIds('/admin/suppliers/kyc/pending')).not.toContain(s.attemptId);
  const review = await call(t.app, 'POST', `/admin/kyc/attempts/${s.attemptId}/review`, {
    token: admin.token,
    body: { decision: 'APPROVE' },
  });
  expect(review.status).toBe(409);
  expect(review.body.error.code).toBe('INVALID_TRANSITION');
  // The attempt stays readable for the record, without its (deleted) supplier.
  const detail = await call(t.app, 'GET', `/admin/kyc/attempts/${s.attemptId}`, { token: admin.token });
  expect(detail.body.data).toMatchObject({ id: s.attemptId, supplier: null, reviewerId: null, history: [] });
  const profile = await t.app.ctx.db.select().from(supplierProfiles).where(eq(supplierProfiles.id, s.owner.profile.id));
  expect(profile[0]!.verificationStatus).toBe('PENDING');
}

describe('deleting a supplier profile', () => {
  it("revokes its stores' pending invitations and withdraws its pending KYC attempt in the same step", async () => {
    const s = await supplierWithLooseEnds();
    const del = await call(t.app, 'DELETE', '/suppliers/profile', { token: s.owner.token });
    expect(del.status).toBe(200);

    await expectNothingLeft(s);
    const accept = await call(t.app, 'POST', `/staff/invitations/${s.code}/accept`, { token: s.invited.token });
    expect(accept.status).toBe(409);
    expect(accept.body.error).toMatchObject({
      code: 'INVALID_TRANSITION',
      message: expect.stringContaining('REVOKED'),
    });
    const detail = await call(t.app, 'GET', `/admin/kyc/attempts/${s.attemptId}`, { token: admin.token });
    expect(detail.body.data.status).toBe('WITHDRAWN');
    const withdrawn = await call(t.app, 'GET', '/admin/kyc/attempts', {
      token: admin.token,
      query: { supplierId: s.owner.profile.id, status: 'WITHDRAWN' },
    });
    expect(withdrawn.body.data.map((a: { id: string }) => a.id)).toEqual([s.attemptId]);
    const stats = await call(t.app, 'GET', '/admin/kyc/stats', {
      token: admin.token,
      query: { supplierId: s.owner.profile.id },
    });
    expect(stats.body.data).toMatchObject({
      total: 1,
      pending: 0,
      decided: 0,
      averageReviewSeconds: null,
      byStatus: { PENDING: 0, WITHDRAWN: 1 },
    });
  });

  it('ignores what a supplier deleted without that cleanup left open', async () => {
    // Rows from before invitations and attempts were closed with the profile: still PENDING.
    const s = await supplierWithLooseEnds();
    const at = t.clock.now();
    await t.app.ctx.db
      .update(supplierProfiles)
      .set({ deletedAt: at, updatedAt: at })
      .where(eq(supplierProfiles.id, s.owner.profile.id));

    await expectNothingLeft(s);
    const accept = await call(t.app, 'POST', `/staff/invitations/${s.code}/accept`, { token: s.invited.token });
    expect(accept.status).toBe(404);
    const detail = await call(t.app, 'GET', `/admin/kyc/attempts/${s.attemptId}`, { token: admin.token });
    expect(detail.body.data.status).toBe('PENDING');
  });
});
