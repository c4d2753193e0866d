import assert from 'node:assert/strict';
import type { App } from '../../src/http/types.js';
import { admin } from '../helpers/app.js';

/** What a test needs of one console response. */
export interface Page {
  status: number;
  body: string;
  headers: Record<string, unknown>;
  location?: string;
  cookies: string[];
}

function setCookies(headers: Record<string, unknown>): string[] {
  const raw = headers['set-cookie'];
  return raw === undefined ? [] : ([raw].flat() as string[]);
}

/** A browser's view of the console: the cookies it holds, sent back on every request. */
export class ConsoleClient {
  readonly jar = new Map<string, string>();
  constructor(private readonly app: App) {}

  private cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: 'GET' | 'POST', url: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
    const res = await this.app.inject({
      method,
      url,
      headers: {
        ...(this.jar.size > 0 ? { cookie: this.cookieHeader() } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      payload: form ? new URLSearchParams(form).toString() : undefined,
    });
    const cookies = setCookies(res.headers);
    for (const c of cookies) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === '' || /Max-Age=0/i.test(c)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return { status: res.statusCode, body: res.body, headers: res.headers, location: res.headers.location as string | undefined, cookies };
  }

  /** GETs a page with a form and posts it with the page's CSRF token and `fields`. */
  async submit(pageUrl: string, action: string, fields: Record<string, string>): Promise<Page> {
    const page = await this.request('GET', pageUrl);
    assert.equal(page.status, 200, page.body);
    return this.request('POST', action, { csrf: csrfOf(page.body), ...fields });
  }

  setPassword(token: string, password: string): Promise<Page> {
    return this.submit(`/console/invite/${token}`, `/console/invite/${token}`, { password });
  }

  signIn(email: string, password: string): Promise<Page> {
    return this.submit('/console/sign-in', '/console/sign-in', { email, password });
  }
}

export function csrfOf(html: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(html);
  assert.ok(match, 'the form carries a CSRF token');
  return match[1];
}

export function tokenOf(inviteUrl: string): string {
  return inviteUrl.split('/console/invite/')[1];
}

export const PASSWORD = 'correct horse battery';

/** Invites a member through the operator API; returns the response body (with the invite token). */
export async function invite(app: App, venueId: string, email: string, role = 'staff', name = 'Ada Lovelace') {
  const res = await admin(app, 'POST', `/venues/${venueId}/staff`, { email, name, role });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { ...res.body, token: tokenOf(res.body.inviteUrl) } as {
    id: string;
    email: string;
    inviteUrl: string;
    token: string;
    status: string;
  };
}

/** A member with a password, signed in: the client holds their session cookie. */
export async function signedIn(app: App, venueId: string, email: string, role = 'staff') {
  const member = await invite(app, venueId, email, role);
  const client = new ConsoleClient(app);
  assert.equal((await client.setPassword(member.token, PASSWORD)).status, 200);
  const res = await client.signIn(email, PASSWORD);
  assert.equal(res.status, 303, res.body);
  assert.equal(res.location, '/console');
  return { member, client };
}
