// The checkout form's fields and their errors: which contact fields an order type needs, labels
// that say "(optional)" otherwise, the server's errors[] next to the field they name, and a mark
// that goes as soon as the guest fixes its field.
import type { GuestOrderType } from '../../src/modules/guest-page/shared/page-data.js';
import { fill, type UiStrings } from '../../src/modules/guest-page/shared/strings.js';
import { byId, h } from '../shared/dom.js';

/** Fields of the order form, by the name the server's errors start with. */
export const FIELDS = [
  'type',
  'paymentMethod',
  'customerName',
  'customerPhone',
  'customerEmail',
  'deliveryAddress',
  'deliveryNotes',
  'comment',
  'scheduledFor',
] as const;
export type Field = (typeof FIELDS)[number];

/** The contact fields the form asks for, in order; the delivery ones show for deliveries only. */
const CONTACT = ['customerName', 'customerPhone', 'customerEmail', 'deliveryAddress', 'deliveryNotes'] as const;
type ContactField = (typeof CONTACT)[number];
const DELIVERY_ONLY: readonly Field[] = ['deliveryAddress', 'deliveryNotes'];

/**
 * What each order type needs. The order API requires the address of a delivery only;
 * the page also asks a pickup's name, which the counter calls, and a delivery's name
 * and phone, for the courier. At a table nothing: the order carries the table.
 */
const NEEDED: Record<GuestOrderType, readonly Field[]> = {
  dine_in: [],
  pickup: ['customerName'],
  delivery: ['customerName', 'customerPhone', 'deliveryAddress'],
};

export function checkoutForm(t: UiStrings) {
  const labels: Record<ContactField, string> = {
    customerName: t.name,
    customerPhone: t.phone,
    customerEmail: t.email,
    deliveryAddress: t.deliveryAddress,
    deliveryNotes: t.deliveryNotes,
  };
  const need: Record<ContactField, string | null> = {
    customerName: t.needName,
    customerPhone: t.needPhone,
    customerEmail: null,
    deliveryAddress: t.needAddress,
    deliveryNotes: null,
  };

  function field(name: Field, label: string, input: HTMLInputElement | HTMLTextAreaElement): HTMLElement {
    input.id = `f-${name}`;
    input.name = name;
    input.setAttribute('aria-describedby', `err-${name}`);
    return h(
      'div',
      { class: 'field', id: `field-${name}` },
      h('label', { for: `f-${name}` }, label),
      input,
      h('p', { class: 'field-error', id: `err-${name}`, hidden: true }),
    );
  }

  function radios(
    name: Field,
    legend: string,
    values: readonly string[],
    label: (v: string) => string,
    checked: string,
    onChange?: (v: string) => void,
  ): HTMLElement {
    return h(
      'fieldset',
      { class: 'group', id: `field-${name}`, 'aria-describedby': `err-${name}` },
      h('legend', {}, legend),
      ...values.map((v) =>
        h(
          'label',
          { class: 'choice', for: `f-${name}-${v}` },
          h('input', { type: 'radio', id: `f-${name}-${v}`, name, value: v, checked: v === checked, onchange: () => onChange?.(v) }),
          label(v),
        ),
      ),
      h('p', { class: 'field-error', id: `err-${name}`, hidden: true }),
    );
  }

  /** The contact fields; `forType` then shows and labels them for the order type chosen. */
  function contactFields(): HTMLElement[] {
    const inputs: Record<ContactField, HTMLInputElement> = {
      customerName: h('input', { type: 'text', autocomplete: 'name', maxlength: 200 }),
      customerPhone: h('input', { type: 'tel', autocomplete: 'tel', maxlength: 50 }),
      customerEmail: h('input', { type: 'email', autocomplete: 'email', maxlength: 254 }),
      deliveryAddress: h('input', { type: 'text', autocomplete: 'street-address', maxlength: 500 }),
      deliveryNotes: h('input', { type: 'text', maxlength: 500 }),
    };
    return CONTACT.map((name) => field(name, labels[name], inputs[name]));
  }

  /** Shows the fields of `type`; a field it needs says its name, any other "(optional)". */
  function forType(type: GuestOrderType): void {
    for (const name of CONTACT) {
      const el = byId(`field-${name}`);
      if (!el) continue;
      el.hidden = DELIVERY_ONLY.includes(name) && type !== 'delivery';
      const needed = NEEDED[type].includes(name);
      const label = el.querySelector('label');
      if (label) label.textContent = needed ? labels[name] : fill(t.optional, { label: labels[name] });
      el.querySelector('input')?.toggleAttribute('required', needed);
    }
  }

  function mark(name: Field, message: string): HTMLElement | null {
    const slot = byId(`err-${name}`);
    const fieldEl = byId(`field-${name}`);
    if (!slot || !fieldEl || fieldEl.hidden) return null;
    slot.textContent = slot.textContent ? `${slot.textContent} ${message}` : message;
    slot.hidden = false;
    const input = fieldEl.querySelector<HTMLElement>('input, textarea, select');
    input?.setAttribute('aria-invalid', 'true');
    return input;
  }

  function unmark(name: string): void {
    const slot = byId(`err-${name}`);
    if (slot) {
      slot.hidden = true;
      slot.textContent = '';
    }
    byId(`field-${name}`)?.querySelector('[aria-invalid]')?.removeAttribute('aria-invalid');
  }

  function clearErrors(form: HTMLFormElement): void {
    for (const el of form.querySelectorAll<HTMLElement>('.field-error, .form-error')) {
      el.hidden = true;
      el.textContent = '';
    }
    for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  }

  /** The summary at the top, then focus on the first field marked (else on the summary). */
  function summarise(first: HTMLElement | null, general: string[]): void {
    const formError = byId('form-error');
    if (formError) {
      formError.textContent = [first ? t.fixErrors : '', ...general].filter(Boolean).join(' ');
      formError.hidden = false;
    }
    (first ?? formError)?.focus();
  }

  /** The server's errors[] entries start with the field they name: each goes next to its field. */
  function showErrors(messages: string[]): void {
    const general: string[] = [];
    let first: HTMLElement | null = null;
    for (const message of messages) {
      const name = /^([A-Za-z]+)/.exec(message)?.[1] as Field | undefined;
      // Shown under the field's label: the field's name is not repeated.
      const text = name ? message.slice(name.length).trim() : '';
      const input =
        name && (FIELDS as readonly string[]).includes(name)
          ? mark(name, text ? text.charAt(0).toLocaleUpperCase() + text.slice(1) : message)
          : null;
      if (input) first ??= input;
      else general.push(message);
    }
    summarise(first, general);
  }

  /** Marks the needed fields left empty, before anything is sent; whether all were filled. */
  function checkNeeded(form: HTMLFormElement, type: GuestOrderType): boolean {
    let first: HTMLElement | null = null;
    for (const name of NEEDED[type]) {
      const input = form.elements.namedItem(name) as HTMLInputElement | null;
      const message = need[name as ContactField];
      if (!input || !message || input.value.trim() !== '') continue;
      // Every empty one is marked; focus goes to the first.
      const marked = mark(name, message);
      first ??= marked;
    }
    if (first) summarise(first, []);
    return first === null;
  }

  /**
   * A mark goes as soon as its field is fixed: a needed field once it holds something, a field the
   * server refused once it is changed (the server checks it again on the next try). The summary
   * goes with the last mark.
   */
  function clearOnFix(form: HTMLFormElement): void {
    const fixed = (event: Event) => {
      const input = event.target as HTMLInputElement;
      if (!input.name || !input.hasAttribute('aria-invalid')) return;
      if (input.required && input.value.trim() === '') return;
      unmark(input.name);
      const formError = byId('form-error');
      if (formError && formError.textContent === t.fixErrors && !form.querySelector('[aria-invalid]')) {
        formError.hidden = true;
        formError.textContent = '';
      }
    };
    form.addEventListener('input', fixed);
    form.addEventListener('change', fixed);
  }

  return { field, radios, contactFields, forType, clearErrors, showErrors, checkNeeded, clearOnFix };
}
