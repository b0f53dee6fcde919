import { readFileSync } from 'node:fs';
import { parsePhoneNumberWithError } from 'libphonenumber-js';
import { AppError } from './errors.js';

/**
 * The password rules of OWASP ASVS 5.0 section 6.2: at least 8 characters counted as typed (never
 * trimmed), not only spaces, not a common or breached password (alone or with digits and symbols
 * around it), not a keyboard walk, sequence or repetition, and not containing the account's own
 * phone number or email. No composition rules (a capital, a digit...): length and the lists do
 * the work.
 */
export interface PasswordContext {
  phoneNumber?: string | null;
  email?: string | null;
}

const MIN = 8;
const MAX = 128;

// Letters, digits and punctuation in the order the keys sit, so typing along a row is refused.
const WALKS = [
  '1234567890',
  'azertyuiop',
  'qsdfghjklm',
  'wxcvbn',
  'qwertyuiop',
  'asdfghjkl',
  'zxcvbnm',
  'qwertzuiop',
  'abcdefghijklmnopqrstuvwxyz',
  'azertyuiopqsdfghjklmwxcvbn',
  'qwertyuiopasdfghjklzxcvbnm',
  '1qaz2wsx3edc4rfv5tgb6yhn',
  'a1z2e3r4t5y6u7i8o9p0',
  'q1w2e3r4t5y6u7i8o9p0',
];
const WALK_TEXT = [...WALKS, ...WALKS.map((w) => [...w].reverse().join(''))].join(' ');
const LEET: Record<string, string> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
  '!': 'i',
};

let lists: Set<string> | undefined;
/** The shipped lists (src/shared/password-lists/), read on first use. */
function listed(): Set<string> {
  if (lists) return lists;
  const read = (name: string) =>
    readFileSync(new URL(`./password-lists/${name}`, import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line && !line.startsWith('# '));
  lists = new Set([...read('breached.txt'), ...read('local.txt')].map(fold));
  return lists;
}

// Lower case without accents: "Sénégal" is "senegal".
const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** The word inside digits and symbols ("P@ssw0rd2024!" -> "password"), or '' when there is none. */
function core(folded: string): string {
  const word = folded.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
  return [...word].map((c) => LEET[c] ?? c).join('');
}

function isWalk(folded: string): boolean {
  return WALK_TEXT.includes(folded) || new Set(folded).size <= 2;
}

/** The national digits of the phone number (771234567 for +221771234567), which any writing of it contains. */
function phoneDigits(phone: string): string | undefined {
  try {
    return String(parsePhoneNumberWithError(phone).nationalNumber);
  } catch {
    return undefined;
  }
}

function broken(password: string, context: PasswordContext): string | undefined {
  const length = [...password].length;
  if (length < MIN || length > MAX) return `must be ${MIN} to ${MAX} characters long`;
  if (password.trim() === '') return 'must not be only spaces';
  const folded = fold(password);
  const word = core(folded);
  if (listed().has(folded) || listed().has(word)) {
    return 'is a common or breached password (or one with digits or symbols added); choose a less predictable one';
  }
  if (isWalk(folded) || (word.length >= 4 && isWalk(word))) {
    return 'is a keyboard walk, a sequence or a repeated character; choose a less predictable one';
  }
  const digits = context.phoneNumber ? phoneDigits(context.phoneNumber) : undefined;
  if (digits && folded.replace(/[\s().\-/]/g, '').includes(digits)) return 'must not contain your phone number';
  const local = context.email ? fold(context.email.split('@')[0] ?? '') : '';
  if (local.length >= 3 && folded.includes(local)) return 'must not contain your email address';
  return undefined;
}

/** Throws 400 VALIDATION_ERROR naming the field and the rule the password breaks. */
export function assertPasswordPolicy(password: string, context: PasswordContext = {}, field = 'body.password'): void {
  const rule = broken(password, context);
  if (rule) throw new AppError(400, 'VALIDATION_ERROR', `The password ${rule}`, [{ field, message: rule }]);
}
