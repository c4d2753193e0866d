// The menu page's script: the product dialog (modifiers with the server's rules, a live price),
// the cart and placing the order. The menu itself is already on the page, server-rendered.
import { formatMoney } from '../../src/modules/guest-page/shared/money.js';
import type { GuestOrderType, PageData } from '../../src/modules/guest-page/shared/page-data.js';
import { fill } from '../../src/modules/guest-page/shared/strings.js';
import { Cart, basePrice, optionsOf, unitPrice, unitSaving, type CartModifier, type GuestMenu, type MenuGroup, type MenuProduct } from './cart.js';
import { byId, h, replace } from './dom.js';

/** Fields of the order form, by the name the server's errors start with. */
const FIELDS = ['type', 'paymentMethod', 'customerName', 'customerPhone', 'customerEmail', 'deliveryAddress', 'deliveryNotes', 'comment'] as const;
type Field = (typeof FIELDS)[number];

export function startMenu(data: PageData): void {
  const t = data.strings;
  const money = (minor: number) => formatMoney(minor, data.currency, data.locale);
  const cart = new Cart(data.slug);
  const ordering = data.orderTypes.length > 0;
  let products = new Map<string, MenuProduct>();

  // The modifier groups and option ids come from the guest menu JSON. A failed load (a blip, a
  // per-IP 429 on shared Wi-Fi) is tried again on the next "Add", and says so.
  let menuLoad: Promise<boolean> | null = null;
  const loadMenu = (): Promise<boolean> => {
    menuLoad ??= fetch(data.menuUrl, { headers: { accept: 'application/json' } })
      .then((res) => (res.ok ? (res.json() as Promise<GuestMenu>) : Promise.reject(new Error(String(res.status)))))
      .then((menu) => {
        products = new Map(menu.products.map((p) => [p.id, p]));
        cart.reconcile(products);
        renderCartBar();
        return true;
      })
      .catch(() => {
        menuLoad = null;
        return false;
      });
    return menuLoad;
  };
  void loadMenu();

  const announce = (text: string) => {
    const el = byId('announce');
    if (el) el.textContent = text;
  };

  // --- Product dialog ---------------------------------------------------------------------
  const productDialog = h('dialog', { class: 'sheet', id: 'product-dialog', 'aria-labelledby': 'pd-title' });
  document.body.append(productDialog);

  function optionLabel(name: string, adjustment: number): string {
    return adjustment === 0 ? name : `${name} (${adjustment > 0 ? '+' : '−'}${money(Math.abs(adjustment))})`;
  }

  function groupFieldset(group: MenuGroup, onChange: () => void): HTMLFieldSetElement {
    const errorId = `err-g-${group.id}`;
    const inputs = group.options.map((o) => {
      const id = `o-${o.id}`;
      if (group.type === 'single_choice') {
        return h('label', { class: 'choice', for: id },
          h('input', { type: 'radio', id, name: `g-${group.id}`, value: o.id, onchange: onChange }), optionLabel(o.name, o.priceAdjustment));
      }
      if (group.type === 'add_ingredients') {
        return h('label', { class: 'choice choice-qty', for: id },
          h('span', {}, optionLabel(o.name, o.priceAdjustment)),
          h('input', { type: 'number', id, 'data-option': o.id, min: 0, max: 10, value: 0, inputmode: 'numeric', oninput: onChange }));
      }
      return h('label', { class: 'choice', for: id },
        h('input', { type: 'checkbox', id, value: o.id, onchange: onChange }), optionLabel(o.name, o.priceAdjustment));
    });
    return h('fieldset', { class: 'group', 'data-group': group.id, 'aria-describedby': errorId },
      h('legend', {}, group.name, group.isRequired ? h('span', { class: 'req' }, ` · ${t.required}`) : null),
      ...inputs,
      h('p', { class: 'field-error', id: errorId, hidden: true }));
  }

  function chosen(product: MenuProduct): CartModifier[] {
    const out: CartModifier[] = [];
    for (const group of product.modifierGroups) {
      for (const o of group.options) {
        const input = productDialog.querySelector<HTMLInputElement>(`#o-${CSS.escape(o.id)}`);
        if (!input) continue;
        if (input.type === 'number') {
          const q = Math.max(0, Math.min(10, Math.trunc(Number(input.value) || 0)));
          if (q > 0) out.push({ optionId: o.id, quantity: q });
        } else if (input.checked) out.push({ optionId: o.id, quantity: 1 });
      }
    }
    return out;
  }

  function stepper(value: number, label: string, onSet: (n: number) => void, min = 1): HTMLElement {
    const output = h('output', { 'aria-live': 'polite' }, value);
    let current = value;
    const set = (n: number) => {
      current = Math.max(min, Math.min(99, n));
      output.textContent = String(current);
      onSet(current);
    };
    return h('div', { class: 'stepper', role: 'group', 'aria-label': label },
      h('button', { type: 'button', class: 'step', 'aria-label': t.decrease, onclick: () => set(current - 1) }, '−'),
      output,
      h('button', { type: 'button', class: 'step', 'aria-label': t.increase, onclick: () => set(current + 1) }, '+'));
  }

  function openProduct(product: MenuProduct): void {
    let quantity = 1;
    const addButton = h('button', { type: 'submit', class: 'primary', id: 'pd-add' });
    const refresh = () => {
      const modifiers = chosen(product);
      addButton.textContent = fill(t.addToOrder, { price: money((unitPrice(product, modifiers) - unitSaving(product)) * quantity) });
      for (const group of product.modifierGroups) {
        const error = byId(`err-g-${group.id}`);
        if (error && !error.hidden && modifiers.some((m) => group.options.some((o) => o.id === m.optionId))) error.hidden = true;
      }
    };
    const form = h('form', { method: 'dialog', class: 'sheet-body', novalidate: true },
      h('header', { class: 'sheet-head' },
        h('h2', { id: 'pd-title' }, product.name),
        h('button', { type: 'button', class: 'close', 'aria-label': t.close, onclick: () => productDialog.close() }, '×')),
      product.description ? h('p', { class: 'desc' }, product.description) : null,
      h('p', { class: 'price' }, money(basePrice(product))),
      ...product.modifierGroups.map((g) => groupFieldset(g, refresh)),
      h('div', { class: 'sheet-foot' }, stepper(1, t.quantity, (n) => {
        quantity = n;
        refresh();
      }), addButton));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const modifiers = chosen(product);
      // The rule the server enforces (decisions 2): a required single choice needs exactly one.
      const missing = product.modifierGroups.filter((g) => g.isRequired && g.type === 'single_choice' &&
        !modifiers.some((m) => g.options.some((o) => o.id === m.optionId)));
      for (const g of product.modifierGroups) {
        const error = byId(`err-g-${g.id}`);
        if (!error) continue;
        const isMissing = missing.includes(g);
        error.hidden = !isMissing;
        error.textContent = isMissing ? t.chooseOne : '';
        productDialog.querySelector(`[data-group="${CSS.escape(g.id)}"]`)?.toggleAttribute('data-invalid', isMissing);
      }
      if (missing.length > 0) {
        productDialog.querySelector<HTMLInputElement>(`[data-group="${CSS.escape(missing[0].id)}"] input`)?.focus();
        return;
      }
      cart.add({ productId: product.id, quantity, modifiers });
      productDialog.close();
      renderCartBar();
      announce(fill(t.added, { name: product.name }));
    });
    replace(productDialog, form);
    refresh();
    productDialog.showModal();
  }

  const addButtons = ordering ? document.querySelectorAll<HTMLButtonElement>('button.add[data-product]') : [];
  for (const button of addButtons) {
    button.hidden = false;
    button.addEventListener('click', async () => {
      if (!(await loadMenu())) return announce(t.menuError);
      const product = products.get(button.dataset.product ?? '');
      if (product) openProduct(product);
    });
  }

  // --- Cart -------------------------------------------------------------------------------
  const cartBar = byId('cart-bar');
  const cartDialog = h('dialog', { class: 'sheet', id: 'cart-dialog', 'aria-labelledby': 'cart-title' });
  document.body.append(cartDialog);
  let orderType: GuestOrderType = data.orderTypes[0] ?? 'dine_in';

  function renderCartBar(): void {
    if (!cartBar) return;
    const show = ordering && cart.count > 0 && products.size > 0;
    cartBar.hidden = !show;
    if (!show) return replace(cartBar);
    const existing = cartBar.querySelector('button');
    const label = fill(t.viewOrder, { count: cart.count, price: money(cart.subtotal(products) - cart.discount(products)) });
    if (existing) existing.textContent = label;
    else replace(cartBar, h('button', { type: 'button', class: 'primary', id: 'open-cart', onclick: openCart }, label));
  }

  function fees(subtotal: number): number {
    if (orderType !== 'delivery') return 0;
    return data.freeDeliveryFromMinor !== null && subtotal >= data.freeDeliveryFromMinor ? 0 : data.deliveryFeeMinor;
  }

  function linesList(): HTMLElement {
    if (cart.count === 0) return h('p', { class: 'empty' }, t.emptyOrder);
    return h('ul', { class: 'lines' }, ...cart.lines.map((line, index) => {
      const product = products.get(line.productId);
      if (!product) return null;
      const options = optionsOf(product);
      const names = line.modifiers.map((m) => {
        const name = options.get(m.optionId)?.name ?? '';
        return m.quantity > 1 ? `${name} ×${m.quantity}` : name;
      });
      return h('li', {},
        h('span', { class: 'line-name' }, product.name, names.length > 0 ? h('small', {}, names.join(', ')) : null),
        stepper(line.quantity, `${t.quantity}: ${product.name}`, (n) => {
          cart.setQuantity(index, n);
          refreshCart();
        }, 0),
        h('span', { class: 'line-price' }, money(unitPrice(product, line.modifiers) * line.quantity)));
    }));
  }

  /** As the server totals it (decisions 2): subtotal + delivery fee - discount, thresholds on the subtotal. */
  function totals(): HTMLElement {
    const subtotal = cart.subtotal(products);
    const discount = cart.discount(products);
    const fee = fees(subtotal);
    return h('div', { id: 'cart-totals' },
      h('dl', { class: 'totals' },
        h('div', {}, h('dt', {}, t.subtotal), h('dd', {}, money(subtotal))),
        discount > 0 ? h('div', {}, h('dt', {}, t.discount), h('dd', {}, `−${money(discount)}`)) : null,
        fee > 0 ? h('div', {}, h('dt', {}, t.deliveryFee), h('dd', {}, money(fee))) : null,
        h('div', { class: 'total' }, h('dt', {}, t.total), h('dd', {}, money(subtotal + fee - discount)))),
      data.minOrderMinor > 0 ? h('p', { class: 'hint' }, fill(t.minOrder, { amount: money(data.minOrderMinor) })) : null);
  }

  function refreshCart(): void {
    const lines = byId('cart-lines');
    if (lines) replace(lines, linesList());
    const sums = byId('cart-totals');
    if (sums) sums.replaceWith(totals());
    renderCartBar();
    if (cart.count === 0) byId<HTMLButtonElement>('place-order')?.setAttribute('disabled', '');
  }

  function field(name: Field, label: string, input: HTMLInputElement | HTMLTextAreaElement, hidden = false): HTMLElement {
    input.id = `f-${name}`;
    input.name = name;
    input.setAttribute('aria-describedby', `err-${name}`);
    return h('div', { class: 'field', id: `field-${name}`, hidden },
      h('label', { for: `f-${name}` }, label),
      input,
      h('p', { class: 'field-error', id: `err-${name}`, hidden: true }));
  }

  function radios(name: Field, legend: string, values: readonly string[], label: (v: string) => string, checked: string, onChange?: (v: string) => void): HTMLElement {
    return h('fieldset', { class: 'group', id: `field-${name}`, 'aria-describedby': `err-${name}` },
      h('legend', {}, legend),
      ...values.map((v) => h('label', { class: 'choice', for: `f-${name}-${v}` },
        h('input', { type: 'radio', id: `f-${name}-${v}`, name, value: v, checked: v === checked, onchange: () => onChange?.(v) }), label(v))),
      h('p', { class: 'field-error', id: `err-${name}`, hidden: true }));
  }

  function showDelivery(): void {
    for (const name of ['deliveryAddress', 'deliveryNotes']) {
      const el = byId(`field-${name}`);
      if (el) el.hidden = orderType !== 'delivery';
    }
  }

  function clearErrors(form: HTMLFormElement): void {
    for (const el of form.querySelectorAll<HTMLElement>('.field-error, .form-error')) {
      el.hidden = true;
      el.textContent = '';
    }
    for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  }

  /** The server's errors[] entries start with the field they name: each goes next to its field. */
  function showErrors(form: HTMLFormElement, messages: string[]): void {
    const general: string[] = [];
    let first: HTMLElement | null = null;
    for (const message of messages) {
      const name = /^([A-Za-z]+)/.exec(message)?.[1] as Field | undefined;
      const slot = name && (FIELDS as readonly string[]).includes(name) ? byId(`err-${name}`) : null;
      const fieldEl = name ? byId(`field-${name}`) : null;
      if (!slot || !fieldEl || fieldEl.hidden) {
        general.push(message);
        continue;
      }
      // Shown under the field's label: the field's name is not repeated.
      const text = message.slice((name as string).length).trim();
      const shown = text ? text.charAt(0).toLocaleUpperCase() + text.slice(1) : message;
      slot.textContent = slot.textContent ? `${slot.textContent} ${shown}` : shown;
      slot.hidden = false;
      const input = fieldEl.querySelector<HTMLElement>('input, textarea');
      input?.setAttribute('aria-invalid', 'true');
      first ??= input;
    }
    const formError = byId('form-error');
    if (formError) {
      formError.textContent = [first ? t.fixErrors : '', ...general].filter(Boolean).join(' ');
      formError.hidden = false;
    }
    (first ?? formError)?.focus();
  }

  function openCart(): void {
    const place = h('button', { type: 'submit', class: 'primary', id: 'place-order', disabled: cart.count === 0 }, t.placeOrder);
    const form = h('form', { id: 'checkout', novalidate: true },
      h('p', { class: 'form-error', id: 'form-error', role: 'alert', tabindex: -1, hidden: true }),
      data.orderTypes.length > 1
        ? radios('type', t.orderType, data.orderTypes, (v) => t[`type_${v as GuestOrderType}`], orderType, (v) => {
          orderType = v as GuestOrderType;
          showDelivery();
          refreshCart();
        })
        : h('p', { class: 'hint' }, data.table ? fill(t.table, { name: data.table.name }) : t[`type_${orderType}`]),
      radios('paymentMethod', t.payment, data.payments, (v) => t[`pay_${v as 'cash' | 'terminal'}`], data.payments[0]),
      field('customerName', t.name, h('input', { type: 'text', autocomplete: 'name', maxlength: 200 })),
      field('customerPhone', t.phone, h('input', { type: 'tel', autocomplete: 'tel', maxlength: 50 })),
      field('customerEmail', t.email, h('input', { type: 'email', autocomplete: 'email', maxlength: 254 })),
      field('deliveryAddress', t.deliveryAddress, h('input', { type: 'text', autocomplete: 'street-address', maxlength: 500 }), orderType !== 'delivery'),
      field('deliveryNotes', t.deliveryNotes, h('input', { type: 'text', maxlength: 500 }), orderType !== 'delivery'),
      field('comment', t.comment, h('textarea', { rows: 2, maxlength: 1000 })),
      place);
    let busy = false;
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      // A second tap while the first is in flight does nothing; a retry after an error reuses the
      // same Idempotency-Key, so the server makes one order either way.
      if (busy || cart.count === 0) return;
      busy = true;
      place.disabled = true;
      place.textContent = t.placing;
      place.setAttribute('aria-busy', 'true');
      clearErrors(form);
      try {
        await placeOrder(form);
      } finally {
        busy = false;
        place.disabled = cart.count === 0;
        place.textContent = t.placeOrder;
        place.removeAttribute('aria-busy');
      }
    });
    replace(cartDialog,
      h('div', { class: 'sheet-body' },
        h('header', { class: 'sheet-head' },
          h('h2', { id: 'cart-title' }, t.yourOrder),
          h('button', { type: 'button', class: 'close', 'aria-label': t.close, onclick: () => cartDialog.close() }, '×')),
        h('div', { id: 'cart-lines' }, linesList()),
        totals(),
        form));
    cartDialog.showModal();
  }

  function orderBody(form: HTMLFormElement): Record<string, unknown> {
    const values = new FormData(form);
    const text = (name: Field) => {
      const v = String(values.get(name) ?? '').trim();
      return v === '' ? undefined : v;
    };
    return {
      type: orderType,
      paymentMethod: text('paymentMethod') ?? data.payments[0],
      items: cart.lines.map((l) => ({ productId: l.productId, quantity: l.quantity, modifiers: l.modifiers })),
      customerName: text('customerName'),
      customerPhone: text('customerPhone'),
      customerEmail: text('customerEmail'),
      deliveryAddress: orderType === 'delivery' ? text('deliveryAddress') : undefined,
      deliveryNotes: orderType === 'delivery' ? text('deliveryNotes') : undefined,
      comment: text('comment'),
      tableId: data.table?.id,
    };
  }

  async function placeOrder(form: HTMLFormElement): Promise<void> {
    const body = JSON.stringify(orderBody(form));
    const key = cart.attemptKey(body);
    let res: Response;
    try {
      res = await fetch(data.orderUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body });
    } catch {
      showErrors(form, [t.networkError]);
      return;
    }
    if (res.status === 201 || res.status === 200) {
      const token = (res.headers.get('location') ?? '').split('/').pop() ?? '';
      cart.clear();
      window.location.assign(`${data.statusPageBase}${encodeURIComponent(token)}?lang=${encodeURIComponent(data.locale)}`);
      return;
    }
    const envelope = (await res.json().catch(() => null)) as { message?: string; errors?: string[] } | null;
    showErrors(form, envelope?.errors?.length ? envelope.errors : [envelope?.message ?? t.networkError]);
  }

  renderCartBar();
}
