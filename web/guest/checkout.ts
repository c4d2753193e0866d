// The checkout in the cart dialog: the order form (type, when, payment, contact, comment; its
// fields are checkout-form.ts's), "Place order", and sending the order with what the server's
// answer means (order-reply.ts): on to the status page, lines sold out since, or ordering closed.
import { orderingMessage } from '../../src/modules/guest-page/shared/availability.js';
import type { GuestOrderType } from '../../src/modules/guest-page/shared/page-data.js';
import { fill, tableLabel } from '../../src/modules/guest-page/shared/strings.js';
import { byId, h } from '../shared/dom.js';
import { checkoutForm } from './checkout-form.js';
import type { MenuState } from './menu-state.js';
import { readReply, statusPageUrl, type ErrorEnvelope } from './order-reply.js';
import type { PageView } from './page-view.js';
import { whenBox } from './when-picker.js';

export interface CheckoutHooks {
  /** The cart's lines and sums changed (the order type, the time picked, a refusal). */
  refreshCart(): void;
  /** What the page knows of ordering changed: the cards follow. */
  orderingChanged(): void;
  /** Reads the menu JSON again. */
  reloadMenu(): Promise<boolean>;
}

export class Checkout {
  private readonly fields: ReturnType<typeof checkoutForm>;

  constructor(
    private readonly view: PageView,
    private readonly state: MenuState,
    private readonly hooks: CheckoutHooks,
  ) {
    this.fields = checkoutForm(view.t);
  }

  /** The form and its "Place order" button, kept at the bottom of the screen outside it. */
  build(): { form: HTMLFormElement; place: HTMLButtonElement } {
    const { state, fields } = this;
    const { data, t } = this.view;
    // "Place order" and the total stay at the bottom of the screen, outside the form so they stick
    // however long the cart; the button submits the form by its id.
    const place = h('button', { type: 'submit', form: 'checkout', class: 'primary', id: 'place-order', disabled: true }, t.placeOrder);
    const form = h(
      'form',
      { id: 'checkout', novalidate: true },
      h('p', { class: 'form-error', id: 'form-error', role: 'alert', tabindex: -1, hidden: true }),
      data.orderTypes.length > 1
        ? fields.radios(
            'type',
            t.orderType,
            data.orderTypes,
            (v) => t[`type_${v as GuestOrderType}`],
            state.orderType,
            (v) => {
              state.orderType = v as GuestOrderType;
              fields.forType(state.orderType);
              this.hooks.refreshCart();
            },
          )
        : h('p', { class: 'hint' }, data.table ? tableLabel(data.table.name, t) : t[`type_${state.orderType}`]),
      this.whenBox(),
      fields.radios('paymentMethod', t.payment, data.payments, (v) => t[`pay_${v as 'cash' | 'terminal'}`], data.payments[0]),
      ...fields.contactFields(),
      fields.field('comment', fill(t.optional, { label: t.comment }), h('textarea', { rows: 2, maxlength: 1000 })),
    );
    fields.clearOnFix(form);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      // A second tap while the first is in flight does nothing; a retry after an error reuses the
      // same Idempotency-Key, so the server makes one order either way.
      if (state.busy || !state.canPlace()) return;
      fields.clearErrors(form);
      if (!fields.checkNeeded(form, state.orderType)) return;
      state.busy = true;
      place.disabled = true;
      place.textContent = t.placing;
      place.setAttribute('aria-busy', 'true');
      try {
        await this.place(form);
      } finally {
        state.busy = false;
        place.disabled = !state.canPlace();
        place.textContent = t.placeOrder;
        place.removeAttribute('aria-busy');
      }
    });
    return { form, place };
  }

  /** Shows the fields of the order type chosen (once the form is on the page). */
  showFields(): void {
    this.fields.forType(this.state.orderType);
  }

  /** Offers "Place order" when the order can be placed. */
  updatePlace(): void {
    const place = byId<HTMLButtonElement>('place-order');
    if (place && !this.state.busy) place.disabled = !this.state.canPlace();
  }

  /** Makes the "when" again (ordering changed). */
  renderWhen(): void {
    byId('when-box')?.replaceWith(this.whenBox());
    this.updatePlace();
  }

  private whenBox(): HTMLElement {
    return whenBox(this.view, this.state, () => {
      // What the server refused was for the time picked before.
      this.state.forgetRefusals();
      this.hooks.refreshCart();
    });
  }

  private async place(form: HTMLFormElement): Promise<void> {
    const { state, fields, hooks } = this;
    const { data, t, when } = this.view;
    const values = new FormData(form);
    const body = JSON.stringify(
      state.orderBody((name) => {
        const v = String(values.get(name) ?? '').trim();
        return v === '' ? undefined : v;
      }),
    );
    const key = state.cart.attemptKey(body);
    let res: Response;
    try {
      res = await fetch(data.orderUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body });
    } catch {
      fields.showErrors([t.networkError]);
      return;
    }
    const placed = res.status === 201 || res.status === 200;
    const envelope = placed ? null : ((await res.json().catch(() => null)) as ErrorEnvelope | null);
    const reply = readReply(res.status, res.headers.get('location'), envelope);
    switch (reply.kind) {
      case 'placed':
        state.cart.clear();
        window.location.assign(statusPageUrl(data, reply.token));
        return;
      case 'unavailable':
        // Sold out since the menu was read: each line it names says so, with a button to remove it.
        state.refuse(reply.items, state.time.scheduledFor === null ? t.notAvailableNow : t.notAvailableThen);
        await hooks.reloadMenu();
        hooks.refreshCart();
        fields.showErrors([t.unavailableInCart]);
        return;
      case 'closed':
        // Closed since the page was read: the notice says why and until when; a time can still be
        // picked when the venue takes scheduled orders.
        state.closeOrdering(reply);
        hooks.orderingChanged();
        this.renderWhen();
        fields.showErrors([orderingMessage(state.ordering, when, Date.now(), t) ?? t.closedHours]);
        void hooks.reloadMenu();
        return;
      case 'refused':
        fields.showErrors(reply.messages.length > 0 ? reply.messages : [t.networkError]);
    }
  }
}
