// The cart as the guest sees it: the bar at the bottom of the menu (count and total), and the cart
// dialog with its lines (a quantity stepper each; a line that cannot be ordered says why, with a
// button to remove it), the sums as the server will make them, and the checkout (checkout.ts).
import { fill } from '../../src/modules/guest-page/shared/strings.js';
import { MAX_LINE_QUANTITY } from '../../src/shared/pricing.js';
import { byId, h, isolatedList, replace } from '../shared/dom.js';
import { linePrice, optionsOf } from './cart.js';
import { Checkout } from './checkout.js';
import type { MenuState } from './menu-state.js';
import type { PageView } from './page-view.js';
import { stepper } from './stepper.js';

export class CartDialog {
  private readonly bar = byId('cart-bar');
  private readonly dialog = h('dialog', { class: 'sheet', id: 'cart-dialog', 'aria-labelledby': 'cart-title' });
  private readonly checkout: Checkout;

  constructor(
    private readonly view: PageView,
    private readonly state: MenuState,
    hooks: { orderingChanged(): void; reloadMenu(): Promise<boolean> },
  ) {
    this.checkout = new Checkout(view, state, { ...hooks, refreshCart: () => this.refresh() });
    document.body.append(this.dialog);
  }

  get isOpen(): boolean {
    return this.dialog.open;
  }

  /** The bar at the bottom of the menu: how many and what they cost; hidden while the cart is empty. */
  renderBar(): void {
    const { bar, state } = this;
    const { t, money } = this.view;
    if (!bar) return;
    const show = state.canAdd() && state.cart.count > 0 && state.products.size > 0;
    bar.hidden = !show;
    if (!show) return replace(bar);
    const existing = bar.querySelector('button');
    const sums = state.sums();
    const label = fill(t.viewOrder, { count: state.cart.count, price: money(sums.subtotalAmount - sums.discountAmount) });
    if (existing) existing.textContent = label;
    else replace(bar, h('button', { type: 'button', class: 'primary', id: 'open-cart', onclick: () => this.open() }, label));
  }

  /** The lines and the sums again. */
  refresh(): void {
    const lines = byId('cart-lines');
    if (lines) replace(lines, this.linesList());
    this.refreshSums();
  }

  /** Ordering changed: the checkout's "when" is made again (the guest may be using it, so only then). */
  renderWhen(): void {
    this.checkout.renderWhen();
  }

  open(): void {
    const { t, money } = this.view;
    const { form, place } = this.checkout.build();
    replace(
      this.dialog,
      h(
        'div',
        { class: 'sheet-body' },
        h(
          'header',
          { class: 'sheet-head' },
          h('h2', { id: 'cart-title' }, t.yourOrder),
          h('button', { type: 'button', class: 'close', 'aria-label': t.close, onclick: () => this.dialog.close() }, '×'),
        ),
        h('div', { id: 'cart-lines' }, this.linesList()),
        this.totals(),
        form,
        h(
          'div',
          { class: 'sheet-foot checkout-foot' },
          h(
            'p',
            { class: 'foot-total' },
            h('span', {}, t.total),
            ' ',
            h('strong', { id: 'foot-total' }, money(this.state.sums().totalAmount)),
          ),
          place,
        ),
      ),
    );
    this.checkout.showFields();
    this.checkout.updatePlace();
    this.dialog.showModal();
  }

  private refreshSums(): void {
    byId('cart-totals')?.replaceWith(this.totals());
    const footTotal = byId('foot-total');
    if (footTotal) footTotal.textContent = this.view.money(this.state.sums().totalAmount);
    this.renderBar();
    this.checkout.updatePlace();
  }

  private removeLine(index: number, name: string): void {
    const { t } = this.view;
    this.state.removeLine(index);
    this.refresh();
    this.view.announce(fill(t.removed, { name }));
    const formError = byId('form-error');
    if (formError && formError.textContent === t.unavailableInCart && !this.state.hasProblems()) {
      formError.hidden = true;
      formError.textContent = '';
    }
    // Focus stays in the dialog: the next line to remove, else placing the order.
    const place = byId<HTMLButtonElement>('place-order');
    (
      this.dialog.querySelector<HTMLElement>('button.remove') ??
      (place && !place.disabled ? place : this.dialog.querySelector<HTMLElement>('.close'))
    )?.focus();
  }

  private linesList(): HTMLElement {
    const { state } = this;
    const { t, money } = this.view;
    if (state.cart.count === 0) return h('p', { class: 'empty' }, t.emptyOrder);
    let problems = 0;
    const items = state.cart.lines.map((line, index) => {
      const product = state.products.get(line.productId);
      if (!product) return null;
      const options = optionsOf(product);
      const names = isolatedList(
        line.modifiers.map((m) => {
          const name = options.get(m.optionId)?.name ?? '';
          return m.quantity > 1 ? `${name} ×${m.quantity}` : name;
        }),
        t.comma,
      );
      const price = (quantity: number) => money(linePrice(product, line.modifiers) * quantity);
      const priceEl = h('span', { class: 'line-price' }, price(line.quantity));
      const problem = state.lineProblem(line);
      if (problem === null) {
        // A changed quantity updates the line and the sums in place, so the focus stays on the
        // button pressed; down to 0 takes the line out.
        return h(
          'li',
          {},
          h('span', { class: 'line-name' }, product.name, names.length > 0 ? h('small', {}, ...names) : null),
          stepper(line.quantity, {
            name: { 'aria-label': `${t.quantity}: ${product.name}` },
            less: fill(t.decreaseNamed, { name: product.name }),
            more: fill(t.increaseNamed, { name: product.name }),
            min: 0,
            max: () => MAX_LINE_QUANTITY,
            onSet: (n) => {
              if (n === 0) return this.removeLine(index, product.name);
              state.cart.setQuantity(index, n);
              priceEl.textContent = price(n);
              this.refreshSums();
            },
          }).el,
          priceEl,
        );
      }
      // Unavailable: it says why, and a button takes it out.
      problems += 1;
      const problemId = `line-problem-${index}`;
      return h(
        'li',
        { class: 'line-unavailable', 'data-product': line.productId },
        h(
          'span',
          { class: 'line-name' },
          line.quantity > 1 ? `${line.quantity}× ${product.name}` : product.name,
          names.length > 0 ? h('small', {}, ...names) : null,
          h('span', { class: 'line-problem', id: problemId }, problem),
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'remove',
            'aria-label': fill(t.removeNamed, { name: product.name }),
            'aria-describedby': problemId,
            onclick: () => this.removeLine(index, product.name),
          },
          t.remove,
        ),
        priceEl,
      );
    });
    return h(
      'div',
      {},
      problems > 0 ? h('p', { class: 'line-alert', id: 'cart-problem' }, t.unavailableInCart) : null,
      h('ul', { class: 'lines' }, ...items),
    );
  }

  /** The sums as the server makes them: subtotal + delivery fee - discount, thresholds on the subtotal. */
  private totals(): HTMLElement {
    const { data, t, money, signedMoney } = this.view;
    const { subtotalAmount, discountAmount, deliveryFee, totalAmount } = this.state.sums();
    return h(
      'div',
      { id: 'cart-totals' },
      h(
        'dl',
        { class: 'totals' },
        h('div', {}, h('dt', {}, t.subtotal), h('dd', {}, money(subtotalAmount))),
        discountAmount > 0 ? h('div', {}, h('dt', {}, t.discount), h('dd', {}, signedMoney(-discountAmount))) : null,
        deliveryFee > 0 ? h('div', {}, h('dt', {}, t.deliveryFee), h('dd', {}, money(deliveryFee))) : null,
        h('div', { class: 'total' }, h('dt', {}, t.total), h('dd', {}, money(totalAmount))),
      ),
      data.minOrderMinor > 0 ? h('p', { class: 'hint' }, fill(t.minOrder, { amount: money(data.minOrderMinor) })) : null,
    );
  }
}
