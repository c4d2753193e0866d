// Staff passwords: scrypt with a random salt per password and its parameters stored
// with the hash, compared in constant time; judged by a strength estimator when set.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { SCRYPT_COST, type ScryptCost } from '../../config.js';

export const PASSWORD_MIN_LENGTH = 10;
/** Past this a password is refused when set, and can never match when signing in. */
export const PASSWORD_MAX_LENGTH = 200;

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

/** The memory one hash takes at `cost` (scrypt's V and B arrays), what Node must be allowed. */
export function scryptMemory({ N, r, p }: ScryptCost): number {
  return 128 * r * (N + p + 2);
}

function derive(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  // maxmem with room to spare: Node refuses a cost whose arrays would not fit under it.
  const options = { ...cost, maxmem: 2 * scryptMemory(cost) };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

interface Parsed {
  cost: ScryptCost;
  salt: Buffer;
  hash: Buffer;
}

/** `scrypt$N$r$p$salt$hash` (base64url), or null for anything else. */
function parse(stored: string): Parsed | null {
  const [scheme, n, r, p, salt, hash, ...rest] = stored.split('$');
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== 'scrypt' || rest.length > 0 || !salt || !hash || ![cost.N, cost.r, cost.p].every((x) => Number.isSafeInteger(x) && x > 0))
    return null;
  return { cost, salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url') };
}

/**
 * Hashes at today's cost and verifies at the cost a hash was made with, so the cost can rise and
 * older hashes still verify (and are redone at sign-in: `outdated`).
 */
export class PasswordHasher {
  // Verified against when sign-in has no member to verify, so every sign-in runs one hash at today's cost.
  private readonly dummy: Parsed;

  constructor(readonly cost: ScryptCost = SCRYPT_COST) {
    this.dummy = { cost, salt: Buffer.alloc(SALT_LENGTH), hash: Buffer.alloc(KEY_LENGTH) };
  }

  private format(salt: Buffer, key: Buffer): string {
    return ['scrypt', this.cost.N, this.cost.r, this.cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_LENGTH);
    return this.format(salt, await derive(password, salt, this.cost));
  }

  /**
   * Whether `password` is the one `stored` was made from. Always one hash: `stored` null (no member
   * to check) runs the dummy at today's cost and says no, and so does a password too long to have
   * been set, so neither the email nor the password's length changes the work.
   */
  async verify(password: string, stored: string | null): Promise<boolean> {
    const parsed = (stored === null ? null : parse(stored)) ?? this.dummy;
    const key = await derive(password, parsed.salt, parsed.cost);
    await this.padToTodaysCost(password, parsed.cost);
    const same = key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash);
    return same && stored !== null && password.length <= PASSWORD_MAX_LENGTH;
  }

  /**
   * A hash made at a lower N (before the cost rose) verifies faster than the dummy: hashes at N,
   * 2N, ... up to today's N/2 add what is missing, so a member who has not signed in since takes
   * the time an unknown email does and the timing tells nothing.
   */
  private async padToTodaysCost(password: string, cost: ScryptCost): Promise<void> {
    if (cost.r !== this.cost.r || cost.p !== this.cost.p) return;
    for (let N = cost.N; N < this.cost.N; N *= 2) await derive(password, this.dummy.salt, { ...cost, N });
  }

  /** Made at another cost than today's: hashed again at the next sign-in. */
  outdated(stored: string): boolean {
    const parsed = parse(stored);
    return parsed === null || parsed.cost.N !== this.cost.N || parsed.cost.r !== this.cost.r || parsed.cost.p !== this.cost.p;
  }
}
