import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import QRCode from 'qrcode';

// No 0/O, 1/I/L, 5/S or 8/B: read aloud or typed from a phone screen without doubt.
const ALPHABET = 'ACDEFGHJKMNPQRTUVWXY234679';
const PICKUP_CODE_LENGTH = 6;

/** A fresh pickup code: 6 characters of the unambiguous alphabet (about 3e8 values). */
export function newPickupCode(): string {
  let code = '';
  for (let i = 0; i < PICKUP_CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/** Upper-cased, spaces and dashes removed: what a supplier types is compared leniently. */
const normalizeCode = (code: string) => code.toUpperCase().replace(/[\s-]/g, '');

const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/**
 * Signs and reads the QR token of an order: `<payload>.<hmac>`, payload = base64url JSON
 * `{o: orderId, c: code}`. The supplier's scanner sends it as the pickup code.
 */
export class PickupTokens {
  constructor(private readonly secret: string) {}

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.secret).update(payload).digest();
  }

  sign(orderId: string, code: string): string {
    const payload = b64(JSON.stringify({ o: orderId, c: code }));
    return `${payload}.${b64(this.mac(payload))}`;
  }

  /** The code a valid token carries for this order, or null (bad signature, another order, not a token). */
  codeFrom(token: string, orderId: string): string | null {
    const [payload, sig, extra] = token.split('.');
    if (!payload || !sig || extra !== undefined) return null;
    const given = Buffer.from(sig, 'base64url');
    const expected = this.mac(payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { o?: unknown; c?: unknown };
      return body.o === orderId && typeof body.c === 'string' ? body.c : null;
    } catch {
      return null;
    }
  }

  /** A PNG QR code of the order's token. */
  png(orderId: string, code: string): Promise<Buffer> {
    return QRCode.toBuffer(this.sign(orderId, code), { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 320 });
  }
}

/** Whether what the supplier entered (the code or the QR token) is this order's pickup code. */
export function pickupCodeMatches(tokens: PickupTokens, orderId: string, expected: string, given: string): boolean {
  const fromToken = given.includes('.') ? tokens.codeFrom(given, orderId) : null;
  const code = normalizeCode(fromToken ?? given);
  const a = Buffer.from(code);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
