// The board's calls to /console/api (docs/console.md "The board's API"): JSON both ways, the
// session cookie as the credential, and on every change the CSRF value the page put in its meta tag.

export const SIGN_IN_URL = '/console/sign-in';

/** An answer in the error envelope, or no answer at all (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const csrfToken = (): string => document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';

/** Where a signed-out board goes: the session ended (signed out elsewhere, expired, disabled). */
export function toSignIn(): void {
  window.location.assign(SIGN_IN_URL);
}

/** The console's home, which says why while the venue's subscription is inactive. */
const HOME_URL = '/console';

/** Whether the call's refusal already sent the page away (to sign-in, or home to say the subscription is inactive). */
export function leftPage(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 401 || error.code === 'SUBSCRIPTION_INACTIVE');
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One call; the answer's JSON (undefined for 204). A 401 sends the page to sign-in, a 403
 * SUBSCRIPTION_INACTIVE to the console's home (which says why); any other refusal throws an
 * ApiError with the envelope's message (and its `errors`, which name the fields).
 */
export async function api<T>(method: Method, url: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken();
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'NETWORK', 'The server could not be reached. Check the connection and try again.');
  }
  if (res.status === 401) {
    toSignIn();
    throw new ApiError(401, 'SIGNED_OUT', 'You are signed out.');
  }
  if (res.status === 204) return undefined as T;
  const data = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (res.status === 403 && data?.code === 'SUBSCRIPTION_INACTIVE') {
    window.location.assign(HOME_URL);
    throw new ApiError(403, 'SUBSCRIPTION_INACTIVE', "The venue's subscription is inactive.");
  }
  if (!res.ok) {
    const message = typeof data?.message === 'string' ? data.message : `The server answered ${res.status}.`;
    // "Validation failed" says little; its `errors` name the fields. A message that is its only entry is said once.
    const details = Array.isArray(data?.errors) ? data.errors.filter((e): e is string => typeof e === 'string' && e !== message) : [];
    throw new ApiError(
      res.status,
      typeof data?.code === 'string' ? data.code : '',
      details.length ? `${message}: ${details.join('; ')}` : message,
    );
  }
  return data as T;
}

/** The message to show for a failed call. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : 'Something went wrong. Try again.';
}
