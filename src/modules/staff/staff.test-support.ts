import type { TestApp } from '../../../test/helpers/app.js';

export const INVITATION_CODE = /Invitation code: ([A-Za-z0-9_-]{43})/;

/** The invitation code of the next SMS to `phone` after its `after`-th. */
export async function invitationCodeFromSms(t: TestApp, phone: string, after = 0): Promise<string> {
  const sms = await t.sms.waitFor(phone, after);
  return INVITATION_CODE.exec(sms.body)![1]!;
}
