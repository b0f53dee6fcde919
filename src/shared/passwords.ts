import { hash, verify, type Options } from '@node-rs/argon2';
import { validationError } from './errors.js';

// OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane.
// `algorithm: 2` is Argon2id (the package's enum is a const enum, not importable as a value).
export const ARGON2_OPTIONS: Options = { algorithm: 2 as Options['algorithm'], memoryCost: 19_456, timeCost: 2, parallelism: 1 };

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

// The most used passwords of at least eight characters in public breach lists.
const COMMON = new Set(
  `password 12345678 123456789 1234567890 qwertyuiop password1 password123 11111111 00000000 88888888 12341234
  iloveyou sunshine princess football baseball superman starwars trustno1 welcome1 welcome123 qwerty123 1q2w3e4r
  1q2w3e4r5t 1qaz2wsx zaq12wsx abcd1234 abc12345 passw0rd p@ssw0rd p@ssword admin123 administrator azertyuiop
  motdepasse azerty123 qwertzui 987654321 11223344 12121212 123123123 87654321 55555555 66666666 99999999 22222222
  computer michelle jennifer whatever dragon123 letmein1 monkey123 charlie1 football1 baseball1 iloveyou1 123qweasd
  qweasdzxc asdfghjkl zxcvbnm1 1234qwer qwer1234 changeme changeme1 default1 internet liverpool chelsea1 arsenal1
  senegal1 dakar123 abidjan1 bonjour1 soleil123 marseille loveyou1 samsung1 11111111a a1234567 aa123456 q1w2e3r4
  q1w2e3r4t5 test1234 testtest secret123 master123 hello123 freedom1 shadow12 mustang1 michael1 jordan23 pokemon1`
    .split(/\s+/)
    .filter(Boolean),
);

/** Length 8 to 128 (checked by the schema too) and not one of the most common passwords. */
export function assertPasswordPolicy(password: string, field = 'body.password'): void {
  if (password.length < 8 || password.length > 128) throw validationError(field, 'must be 8 to 128 characters long');
  if (COMMON.has(password.toLowerCase())) throw validationError(field, 'is too common; choose a less predictable password');
}
