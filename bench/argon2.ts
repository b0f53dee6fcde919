// argon2id verifications per second with the application's parameters, `concurrency` at a time:
// the ceiling for password sign-in on this machine.
import { verify } from '@node-rs/argon2';
import { hashPassword } from '../src/shared/passwords.js';

const seconds = Number(process.argv[2] ?? 10);
const concurrency = Number(process.argv[3] ?? 4);
const hash = await hashPassword('Bench-Password-1');
let done = 0;
const end = Date.now() + seconds * 1000;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (Date.now() < end) {
      await verify(hash, 'Bench-Password-1');
      done++;
    }
  }),
);
process.stdout.write(`${JSON.stringify({ perSecond: done / seconds })}\n`);
