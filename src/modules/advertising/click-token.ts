import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long an ad's click token stays valid after the ad was served. */
export const CLICK_TOKEN_TTL_SECONDS = 3600;
const IDS = /^[0-9a-f-]{36}(,[0-9a-f-]{36}){0,9}$/;

/**
 * Click tokens: `<campaign ids served together>.<viewerKey>.<expiry, unix seconds>.<HMAC-SHA256,
 * base64url, 128 bits>`. One signature covers the ads of one answer (each ad carries the same
 * token), so serving costs one HMAC per request, not one per ad. Only the API makes them, so a
 * click cannot be counted for a campaign or a viewer the API did not show it to, nor after expiry.
 */
export class ClickTokens {
  constructor(private readonly secret: string) {}

  private mac(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url').slice(0, 22);
  }

  sign(campaignIds: readonly string[], viewerKey: string, expiresAtSeconds: number): string {
    const payload = `${campaignIds.join(',')}.${viewerKey}.${expiresAtSeconds}`;
    return `${payload}.${this.mac(payload)}`;
  }

  /** The viewer key of a valid, unexpired token that covers this campaign; null otherwise. */
  verify(token: string, campaignId: string, nowSeconds: number): string | null {
    const parts = token.split('.');
    if (parts.length !== 4) return null;
    const [ids, viewerKey, exp, mac] = parts as [string, string, string, string];
    if (!IDS.test(ids) || !ids.split(',').includes(campaignId)) return null;
    if (!/^[0-9]{1,12}$/.test(exp) || Number(exp) <= nowSeconds || !/^[A-Za-z0-9_-]{1,64}$/.test(viewerKey))
      return null;
    const expected = Buffer.from(this.mac(`${ids}.${viewerKey}.${exp}`));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected) ? viewerKey : null;
  }
}

// FNV-1a, 32 bits, from a seed.
function fnv1a(s: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * Who sees an ad, without storing who they are: 64 bits of a hash of the address and user agent.
 * It only tells viewers apart for counting clicks (the token's HMAC is what cannot be forged), so a
 * fast non-cryptographic hash does: a viewer who makes theirs collide with another's only loses
 * their own clicks. Like any hash of an address, it is no anonymisation against a brute force.
 */
export function viewerKeyOf(ip: string, userAgent: string | undefined): string {
  const s = `${ip}|${userAgent ?? ''}`;
  const b = Buffer.allocUnsafe(8);
  b.writeUInt32BE(fnv1a(s, 0x811c9dc5), 0);
  b.writeUInt32BE(fnv1a(s, 0x9747b28c), 4);
  return b.toString('base64url');
}
