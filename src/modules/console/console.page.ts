// The console's server-rendered pages (docs/console.md): no script, no inline style (the strict
// CSP), one stylesheet from this origin. Every value goes through escapeHtml.
import { escapeHtml as e } from '../../http/html.js';
import type { ConsoleSession } from '../staff/sessions.service.js';
import { PASSWORD_MIN_LENGTH } from '../staff/passwords.js';

export const CONSOLE_CSS_PATH = '/console/assets/console.css';

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${e(title)} · Carta console</title>
<link rel="stylesheet" href="${CONSOLE_CSS_PATH}">
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

function alert(message: string | undefined): string {
  return message ? `<p class="alert" role="alert" id="form-error">${e(message)}</p>\n` : '';
}

const described = (message: string | undefined, hint?: string) => {
  const ids = [message ? 'form-error' : '', hint ?? ''].filter(Boolean).join(' ');
  return ids ? ` aria-describedby="${ids}"` : '';
};

export function signInPage(csrf: string, error?: string): string {
  return page('Sign in', `<h1>Sign in to the console</h1>
${alert(error)}<form method="post" action="/console/sign-in">
<input type="hidden" name="csrf" value="${e(csrf)}">
<p><label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="254"${described(error)}></p>
<p><label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="200"></p>
<p><button type="submit">Sign in</button></p>
</form>`);
}

export function invitePage(token: string, csrf: string, error?: string): string {
  return page('Set your password', `<h1>Set your password</h1>
${alert(error)}<form method="post" action="/console/invite/${e(encodeURIComponent(token))}">
<input type="hidden" name="csrf" value="${e(csrf)}">
<p><label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="200"${described(error, 'password-hint')}></p>
<p class="hint" id="password-hint">At least ${PASSWORD_MIN_LENGTH} characters, and not a commonly used password.</p>
<p><button type="submit">Set password</button></p>
</form>`);
}

export function messagePage(title: string, message: string, link?: { href: string; text: string }): string {
  return page(title, `<h1>${e(title)}</h1>
<p>${e(message)}</p>${link ? `\n<p><a href="${e(link.href)}">${e(link.text)}</a></p>` : ''}`);
}

/** The console's home for now: the venue and the member, and a way out (the order board comes later). */
export function homePage(session: ConsoleSession, csrf: string): string {
  return page(session.venueName, `<h1>${e(session.venueName)}</h1>
<p>Signed in as <strong>${e(session.memberName)}</strong> (${e(session.role)}).</p>
<form method="post" action="/console/sign-out">
<input type="hidden" name="csrf" value="${e(csrf)}">
<p><button type="submit">Sign out</button></p>
</form>`);
}

export const CONSOLE_CSS = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; padding: 1rem; }
main { max-width: 28rem; margin: 2rem auto; }
h1 { font-size: 1.5rem; }
label { display: block; font-weight: 600; }
input { display: block; width: 100%; box-sizing: border-box; font: inherit; padding: 0.5rem; margin-top: 0.25rem; }
button { font: inherit; padding: 0.5rem 1.25rem; cursor: pointer; }
:focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
.alert { border: 2px solid #a51d2d; padding: 0.5rem 0.75rem; }
.hint { font-size: 0.9rem; margin-top: -0.5rem; }
`;
