// Console cookies and CSRF tokens (the scheme is in docs/decisions.md). A signed-in
// form carries a token derived from the session's own secret (HMAC of the cookie's token), so
// nothing more is stored and it dies with the session; the sign-in and invite forms, before any
// session, use a double-submit cookie: a random value both in an HttpOnly SameSite=Strict cookie and
// in the form, which another site can neither read nor set.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../../ids.js';

/**
 * The console's cookies on a deployment. On https (PUBLIC_BASE_URL) they are `__Host-` cookies:
 * Secure, no Domain and Path=/, so no sibling subdomain or plain-http page can set or shadow them;
 * the prefix requires Path=/, so the browser sends them to every path of the origin, and it is the
 * server that keeps them the console's: only console routes read them (/v1 and the guest pages
 * never do). On http (local runs) a `__Host-` cookie cannot be set: plain names, Path=/console.
 */
export interface ConsoleCookieNames {
  session: string;
  csrf: string;
  secure: boolean;
  path: string;
}

export function consoleCookieNames(publicBaseUrl: string): ConsoleCookieNames {
  const secure = publicBaseUrl.startsWith('https:');
  const prefix = secure ? '__Host-' : '';
  return { session: `${prefix}carta_session`, csrf: `${prefix}carta_csrf`, secure, path: secure ? '/' : '/console' };
}

/** The request's cookies by name (the first of a repeated name wins). */
export function readCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

/** A console cookie: HttpOnly, SameSite=Strict, and as `names` says, Secure and its path. */
export function cookie(names: ConsoleCookieNames, name: string, value: string, maxAgeSec?: number): string {
  return [
    `${name}=${value}`,
    `Path=${names.path}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(names.secure ? ['Secure'] : []),
    ...(maxAgeSec === undefined ? [] : [`Max-Age=${maxAgeSec}`]),
  ].join('; ');
}

export function clearCookie(names: ConsoleCookieNames, name: string): string {
  return cookie(names, name, '', 0);
}

export function newCsrfValue(): string {
  return randomBase62(32);
}

/** The CSRF token of a signed-in form: bound to the session, unknowable without its cookie. */
export function sessionCsrf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('carta console csrf').digest('base64url');
}

export function sameToken(sent: unknown, expected: string | undefined): boolean {
  if (typeof sent !== 'string' || !expected) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Cookie values are base62 tokens: anything else is no token at all. */
export function tokenValue(value: string | undefined): string | undefined {
  return value !== undefined && /^[0-9A-Za-z]{20,100}$/.test(value) ? value : undefined;
}
