// Passwords as GoTrue keeps them (docs/reference/supabase-fidelity.md §1.10): bcrypt at cost 10 in
// auth.users.encrypted_password, the policy from [auth] minimum_password_length / password_requirements,
// and no leaked-password check (the CLI never turns HaveIBeenPwned on).
import bcrypt from 'bcryptjs';
import type { AuthConfig } from '../config.ts';
import { errors, WeakPasswordError } from './errors.ts';

const MAX_BYTES = 72; // GoTrue password.go MaxPasswordLength: bcrypt reads 72 bytes

/** The policy's complaint about `password`, or undefined (GoTrue password.go checkPasswordStrength). */
export function weakness(config: AuthConfig, password: string): WeakPasswordError | undefined {
  const reasons: string[] = [];
  const messages: string[] = [];
  const { minLength, requiredCharacters } = config.password;
  if (Buffer.byteLength(password) < minLength) {
    reasons.push('length');
    messages.push(`Password should be at least ${minLength} characters.`);
  }
  if (requiredCharacters.some((set) => ![...set].some((ch) => password.includes(ch)))) {
    reasons.push('characters');
    messages.push(`Password should contain at least one character of each: ${requiredCharacters.join(', ')}.`);
  }
  return reasons.length ? new WeakPasswordError(messages.join(' '), reasons) : undefined;
}

/** Throws 400 for more than 72 bytes, else the policy's 422 weak_password. */
export function checkPasswordStrength(config: AuthConfig, password: string) {
  if (Buffer.byteLength(password) > MAX_BYTES)
    throw errors.validation(`Password cannot be longer than ${MAX_BYTES} characters`);
  const weak = weakness(config, password);
  if (weak) throw weak;
}

/** `$2a$10$…`, the prefix Go's x/crypto/bcrypt writes (bcryptjs writes the equivalent $2b$). */
export async function hashPassword(password: string): Promise<string> {
  if (Buffer.byteLength(password) > MAX_BYTES) throw errors.validation('bcrypt: password length exceeds 72 bytes'); // Go's bcrypt.ErrPasswordTooLong
  return (await bcrypt.hash(password, 10)).replace(/^\$2b\$/, '$2a$');
}

/**
 * Whether `password` matches a stored bcrypt hash ($2a$, $2b$, $2y$). An empty or other hash
 * (Argon2 or Firebase scrypt imports, which this stand-in can't check) never matches.
 */
export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  if (!hash || !/^\$2[aby]\$\d\d\$/.test(hash)) return false;
  try {
    return await bcrypt.compare(password, hash.replace(/^\$2y\$/, '$2b$'));
  } catch {
    return false;
  }
}

export const hasPassword = (hash: string | null | undefined) => !!hash;
