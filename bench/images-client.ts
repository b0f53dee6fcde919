// The client side of bench/images-server.ts, shared by the picture benchmarks: start a server
// process and create the products the pictures go to.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ImagesServer {
  base: string;
  supplierToken: string;
  storeId: string;
  phoneNumber: string;
  password: string;
  /** Sends SIGTERM; resolves once the process has exited, so the next one never shares its CPU. */
  stop: () => Promise<void>;
}

export async function startImagesServer(env: Record<string, string>): Promise<ImagesServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/images-server.ts'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const info = JSON.parse(line) as Omit<ImagesServer, 'stop' | 'base'> & { address: string };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { ...info, base: `${info.address}/api/v1`, stop: () => (child.kill('SIGTERM'), exited) };
}

/** A product of the server's store, for pictures to be added to; its id. */
export async function newProduct(s: ImagesServer, i: number): Promise<string> {
  const res = await fetch(`${s.base}/products`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.supplierToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      storeId: s.storeId,
      name: `Pain de campagne ${i}`,
      description: 'Miche au levain du jour',
      category: 'BAKERY',
      originalPrice: 1500,
      discountedPrice: 600,
      quantity: 10,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      pickupStart: '18:00',
      pickupEnd: '20:00',
    }),
  });
  if (res.status !== 201) throw new Error(`product not created: ${await res.text()}`);
  return ((await res.json()) as { data: { id: string } }).data.id;
}
