import { parsePhoneNumberWithError } from 'libphonenumber-js';
import { validationError } from './errors.js';

/** E.164 form of an already format-checked phone number: the one form stored and compared. */
export function normalizePhone(value: string, field = 'body.phoneNumber'): string {
  try {
    return parsePhoneNumberWithError(value).number;
  } catch {
    throw validationError(field, 'must be a valid international phone number such as +221771234567');
  }
}

export const normalizeEmail = (value: string) => value.trim().toLowerCase();
