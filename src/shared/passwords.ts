import { hash, verify, type Options } from '@node-rs/argon2';

// OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane.
// `algorithm: 2` is Argon2id (the package's enum is a const enum, not importable as a value).
export const ARGON2_OPTIONS: Options = {
  algorithm: 2 as Options['algorithm'],
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
};

export const hashPassword = (password: string) => hash(password, ARGON2_OPTIONS);

// Verified against when an account is unknown, so a miss costs the same time as a wrong password.
let dummyHash: Promise<string> | undefined;

export async function verifyPassword(storedHash: string | null | undefined, password: string): Promise<boolean> {
  if (!storedHash) {
    dummyHash ??= hashPassword('not-a-real-password-0000');
    await verify(await dummyHash, password);
    return false;
  }
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}
