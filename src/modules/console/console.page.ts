// The console's server-rendered pages (docs/console.md): no script, no inline style (the strict
// CSP), one stylesheet from this origin. Every value goes through escapeHtml.
import { escapeHtml as e } from '../../http/html.js';
import { PASSWORD_MIN_LENGTH } from './passwords.js';
import type { ConsoleSession } from './sessions.service.js';

export const CONSOLE_CSS_PATH = '/console/assets/console.css';

/** Every console page's document start: its head's own lines (title, styles, script) after the shared ones. */
function documentStart(head: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
${head}
</head>
`;
}

function page(title: string, body: string): string {
  return `${documentStart(`<title>${e(title)} · Carta console</title>
<link rel="stylesheet" href="${CONSOLE_CSS_PATH}">`)}<body>
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
  return page(
    'Sign in',
    `<h1>Sign in to the console</h1>
${alert(error)}<form method="post" action="/console/sign-in">
<input type="hidden" name="csrf" value="${e(csrf)}">
<p><label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="254"${described(error)}></p>
<p><label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="200"></p>
<p><button type="submit">Sign in</button></p>
</form>`,
  );
}

export function invitePage(token: string, csrf: string, error?: string): string {
  return page(
    'Set your password',
    `<h1>Set your password</h1>
${alert(error)}<form method="post" action="/console/invite/${e(encodeURIComponent(token))}">
<input type="hidden" name="csrf" value="${e(csrf)}">
<p><label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="200"${described(error, 'password-hint')}></p>
<p class="hint" id="password-hint">At least ${PASSWORD_MIN_LENGTH} characters, and not a commonly used password.</p>
<p><button type="submit">Set password</button></p>
</form>`,
  );
}

export function messagePage(title: string, message: string, link?: { href: string; text: string }): string {
  return page(
    title,
    `<h1>${e(title)}</h1>
<p>${e(message)}</p>${link ? `\n<p><a href="${e(link.href)}">${e(link.text)}</a></p>` : ''}`,
  );
}

/**
 * The console's home while the venue's subscription is suspended or canceled (docs/console.md): why
 * the board is not there, and the way out. The member stays signed in; the board comes back on
 * the next load once the subscription is active again.
 */
export function inactivePage(session: ConsoleSession, csrf: string): string {
  return page(
    'Subscription inactive',
    `<h1>${e(session.venueName)}</h1>
<p class="alert" role="alert">The venue's subscription is ${e(session.subscriptionStatus)}: the order board, the service settings and the staff list are unavailable until it is active again.</p>
<p>Nothing has been deleted. Whoever manages the venue's Carta account can reactivate it.</p>
<p><a href="/console">Try again</a></p>
<form method="post" action="/console/sign-out">
<input type="hidden" name="csrf" value="${e(csrf)}">
<p><button type="submit">Sign out</button></p>
</form>`,
  );
}

/** The board's built script and stylesheets (console.assets.ts); none before `npm run build:web`. */
export interface BoardAssets {
  script: string | null;
  styles: readonly string[];
}

const COLUMNS = [
  ['new', 'New'],
  ['confirmed', 'Confirmed'],
  ['preparing', 'Preparing'],
  ['delivering', 'Out for delivery'],
] as const;

const column = ([key, name]: readonly [
  string,
  string,
]) => `<section class="column column-${key}" id="column-${key}" aria-labelledby="title-${key}">
<h2 id="title-${key}" tabindex="-1">${name} <span class="count" data-count="${key}">0</span></h2>
<p class="empty" id="empty-${key}">No orders.</p>
<div class="cards" id="cards-${key}"></div>
</section>`;

/**
 * The console's home, the order board (docs/console.md "The board"): the venue, the member and
 * "Sign out", the tabs, and the board's columns empty, as landmarks; the script (web/console)
 * fills them from /console/api and keeps them live. The CSRF value of the session is in a meta tag
 * for the script's changes, and in the sign-out form as before.
 */
export function homePage(session: ConsoleSession, csrf: string, assets: BoardAssets = { script: null, styles: [] }): string {
  const owner = session.role === 'owner';
  const tab = (view: string, label: string, selected = false) =>
    `<button type="button" role="tab" id="tab-${view}" data-view="${view}" aria-controls="panel-${view}" aria-selected="${selected}"${selected ? '' : ' tabindex="-1"'}>${label}</button>`;
  return `${documentStart(`<meta name="csrf-token" content="${e(csrf)}">
<title>Board · ${e(session.venueName)}</title>
${assets.styles.map((href) => `<link rel="stylesheet" href="${e(href)}">`).join('\n')}
${assets.script ? `<script type="module" src="${e(assets.script)}"></script>` : ''}`)}<body>
<main id="board">
<header class="top">
<div class="who"><h1>${e(session.venueName)}</h1>
<p class="member">Signed in as <strong>${e(session.memberName)}</strong> (${e(session.role)})</p></div>
<p class="connection" id="connection" role="status"></p>
<div class="tools">
<button type="button" id="sound" aria-pressed="false" hidden>Sound off</button>
<form method="post" action="/console/sign-out">
<input type="hidden" name="csrf" value="${e(csrf)}">
<button type="submit">Sign out</button>
</form>
</div>
</header>
<div class="views" role="tablist" aria-label="Console">
${tab('orders', 'Orders', true)}
${tab('service', 'Service')}
${owner ? tab('staff', 'Staff') : ''}
</div>
<noscript><p class="noscript">The order board needs JavaScript. Turn it on for this site and reload the page.</p></noscript>
<div class="alert-box" id="alert-box" hidden><p id="alert-text" role="alert"></p></div>
<div class="panel" id="panel-orders" role="tabpanel" aria-labelledby="tab-orders">
<h2 class="visually-hidden">Orders</h2>
<div class="board-tools">
<div class="picker" role="group" aria-label="Column">
${COLUMNS.map(([key, name]) => `<button type="button" data-pick="${key}" aria-pressed="${key === 'new'}">${name} <span class="count" data-count="${key}">0</span></button>`).join('\n')}
</div>
<button type="button" id="show-done" aria-pressed="false" aria-controls="column-done">Completed and cancelled today <span class="count" data-count="done">0</span></button>
</div>
<div class="columns">
${COLUMNS.map(column).join('\n')}
</div>
<section class="column column-done" id="column-done" aria-labelledby="title-done" hidden>
<h2 id="title-done" tabindex="-1">Completed and cancelled today <span class="count" data-count="done">0</span></h2>
<p class="empty" id="empty-done">No orders.</p>
<div class="done-cards" id="cards-done"></div>
</section>
</div>
<div class="panel" id="panel-service" role="tabpanel" aria-labelledby="tab-service" hidden></div>
${owner ? '<div class="panel" id="panel-staff" role="tabpanel" aria-labelledby="tab-staff" hidden></div>' : ''}
</main>
</body>
</html>
`;
}

export const CONSOLE_CSS = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; --focus: #1a5fb4; --danger: #a51d2d; }
@media (prefers-color-scheme: dark) { :root { --focus: #8ab4f8; --danger: #ff9c94; } }
body { margin: 0; padding: 1rem; }
main { max-width: 28rem; margin: 2rem auto; }
h1 { font-size: 1.5rem; }
label { display: block; font-weight: 600; }
input { display: block; width: 100%; box-sizing: border-box; font: inherit; padding: 0.5rem; margin-top: 0.25rem; min-height: 2.75rem; }
button { font: inherit; padding: 0.5rem 1.25rem; cursor: pointer; min-height: 2.75rem; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.alert { border: 2px solid var(--danger); padding: 0.5rem 0.75rem; }
.hint { font-size: 0.9rem; margin-top: -0.5rem; }
`;
