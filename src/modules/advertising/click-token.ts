import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** How long an ad's click token stays valid after the ad was served. */
export const CLICK_TOKEN_TTL_SECONDS = 3600;

/**
 * Click tokens: `<campaignId>.<viewerKey>.<expiry, unix seconds>.<HMAC-SHA256, base64url, 128 bits>`.
 * Only the API makes them (with an ad it served), so a click cannot be counted for a campaign
 * or a viewer the API did not show it to, nor after the token expired.
 */
export class ClickTokens {
  constructor(private readonly secret: string) {}

  private mac(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url').slice(0, 22);
  }

  sign(campaignId: string, viewerKey: string, expiresAtSeconds: number): string {
    const payload = `${campaignId}.${viewerKey}.${expiresAtSeconds}`;
    return `${payload}.${this.mac(payload)}`;
  }

  /** The viewer key of a valid, unexpired token for this campaign; null otherwise. */
  verify(token: string, campaignId: string, nowSeconds: number): string | null {
    const parts = token.split('.');
    if (parts.length !== 4) return null;
    const [id, viewerKey, exp, mac] = parts as [string, string, string, string];
    if (id !== campaignId || !/^[0-9]{1,12}$/.test(exp) || Number(exp) <= nowSeconds || !/^[A-Za-z0-9_-]{1,64}$/.test(viewerKey)) return null;
    const expected = Buffer.from(this.mac(`${id}.${viewerKey}.${exp}`));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected) ? viewerKey : null;
  }
}

/** Who sees an ad, without storing who they are: a hash of the address and the user agent. */
export const viewerKeyOf = (ip: string, userAgent: string | undefined) =>
  createHash('sha256').update(`${ip}|${userAgent ?? ''}`).digest('base64url').slice(0, 16);
