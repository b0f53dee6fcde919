import { crc32, deflateSync } from 'node:zlib';

/**
 * A valid PNG of zeros written by hand (channels 1 grey, 3 RGB): a few kilobytes whatever its
 * dimensions, so a decompression bomb, or the largest picture allowed, costs the zeros only once.
 */
export function zeroPng(width: number, height: number, channels: 1 | 3 = 1): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  // Bit depth 8; colour type 2 (RGB) or 0 (grey).
  const header = Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 8, channels === 3 ? 2 : 0, 0, 0, 0]);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  // Each row: filter byte 0, then its pixels.
  const pixels = deflateSync(Buffer.alloc(height * (width * channels + 1)), { level: 9 });
  const sig = Buffer.from('89504e470d0a1a0a', 'hex');
  return Buffer.concat([sig, chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}
