// What the board's views share: the alert region, the confirmation dialog, times and amounts.
import { formatMoney } from '../../src/shared/money.js';
import { byId, h } from '../shared/dom.js';

/** Shows a failed action's message in the page's alert region (role="alert", read out at once). */
export function showAlert(message: string): void {
  const box = byId('alert-box');
  const text = byId('alert-text');
  if (!box || !text) return;
  text.textContent = message;
  box.hidden = false;
}

export function clearAlert(): void {
  const box = byId('alert-box');
  const text = byId('alert-text');
  if (text) text.textContent = '';
  if (box) box.hidden = true;
}

export interface Choice<T extends string> {
  value: T;
  label: string;
  disabled?: boolean;
  danger?: boolean;
}

let dialogs = 0;

/**
 * A modal <dialog> (focus kept inside, Escape closes it) with a question and buttons; resolves with
 * the chosen value, or null for `keep` and Escape. `keep` has the focus first: an accidental Enter
 * changes nothing. The browser gives the focus back to what opened it.
 */
export function choose<T extends string>(title: string, text: string | null, choices: Choice<T>[], keep: string): Promise<T | null> {
  const id = `dialog-${++dialogs}`;
  const keepButton = h('button', { type: 'submit', value: '', autofocus: true }, keep);
  const dialog = h(
    'dialog',
    { class: 'dialog', 'aria-labelledby': `${id}-title`, ...(text ? { 'aria-describedby': `${id}-text` } : {}) },
    h(
      'form',
      { method: 'dialog' },
      h('h2', { id: `${id}-title` }, title),
      text && h('p', { id: `${id}-text` }, text),
      h(
        'div',
        { class: 'dialog-buttons' },
        ...choices.map((c) =>
          h('button', { type: 'submit', value: c.value, disabled: c.disabled === true, class: c.danger ? 'danger' : 'primary' }, c.label),
        ),
        keepButton,
      ),
    ),
  );
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      dialog.remove();
      const value = dialog.returnValue;
      resolve(choices.some((c) => c.value === value) ? (value as T) : null);
    });
    dialog.showModal();
    keepButton.focus();
  });
}

const timeFormats = new Map<string, Intl.DateTimeFormat>();

function timeFormat(timeZone: string, withDay: boolean): Intl.DateTimeFormat {
  const key = `${timeZone}|${withDay}`;
  let f = timeFormats.get(key);
  if (!f) {
    const options: Intl.DateTimeFormatOptions = {
      hour: '2-digit',
      minute: '2-digit',
      timeZone,
      ...(withDay ? { weekday: 'short', day: 'numeric', month: 'short' } : {}),
    };
    try {
      f = new Intl.DateTimeFormat(undefined, options);
    } catch {
      // A timezone this browser does not know: the tablet's own.
      f = new Intl.DateTimeFormat(undefined, { ...options, timeZone: undefined });
    }
    timeFormats.set(key, f);
  }
  return f;
}

/** The calendar day of an instant in `timeZone`, to tell today from another day. */
const dayOf = (ms: number, timeZone: string) => {
  try {
    return new Date(ms).toLocaleDateString('en-CA', { timeZone });
  } catch {
    return new Date(ms).toLocaleDateString('en-CA');
  }
};

/** "19:40" in the venue's timezone; with the day when it is not today there ("Tue 3 Jun, 19:40"). */
export function formatTime(iso: string, timeZone: string, now = Date.now()): string {
  const ms = Date.parse(iso);
  return timeFormat(timeZone, dayOf(ms, timeZone) !== dayOf(now, timeZone)).format(ms);
}

/** Minor units in the currency's ISO 4217 precision, as the guest page shows them. */
export function money(minor: number, currency: string): string {
  return formatMoney(minor, currency, navigator.language || 'en');
}

/** Whether an element is on screen now (not in a hidden column or view). */
export function shown(el: Element): boolean {
  return el.getClientRects().length > 0;
}
