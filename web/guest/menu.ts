// The menu page's script: the product dialog (modifiers with the server's rules, a live price),
// the cart and placing the order, now or for a time the guest picks. The menu itself is already on
// the page, server-rendered; what is sold out and whether ordering is open follow the guest menu JSON.
import {
  availabilityLabel,
  orderingMessage,
  orderingNotice,
  slotsByDay,
  slotTimes,
  When,
  type OrderingInfo,
} from '../../src/modules/guest-page/shared/availability.js';
import { foodFacts, namesOf } from '../../src/modules/guest-page/shared/food.js';
import { formatMoney } from '../../src/modules/guest-page/shared/money.js';
import type { GuestOrderType, PageData } from '../../src/modules/guest-page/shared/page-data.js';
import { fill, tableLabel } from '../../src/modules/guest-page/shared/strings.js';
import {
  Cart,
  basePrice,
  optionsOf,
  unitPrice,
  unitSaving,
  type CartLine,
  type CartModifier,
  type GuestMenu,
  type MenuGroup,
  type MenuProduct,
} from './cart.js';
import { checkoutForm, type Field } from './checkout-form.js';
import { byId, h, isolatedList, replace } from './dom.js';
import { chosenIn, defaultQuantities, groupNeed, optionCap, ruleText, takesStepper } from './rules.js';

/** A line's quantity, as the server takes it (decisions 2: 1..99). */
const MAX_LINE_QUANTITY = 99;

/** The menu JSON is read again when something changes (a mark ends, ordering opens) within this. */
const REFRESH_AHEAD_MS = 6 * 3_600_000;

interface ErrorEnvelope {
  code?: string;
  message?: string;
  errors?: string[];
  details?: { items?: { productId: string; optionId: string | null }[]; reason?: OrderingInfo['reason']; opensAt?: string | null };
}

export function startMenu(data: PageData): void {
  const t = data.strings;
  const money = (minor: number) => formatMoney(minor, data.currency, data.locale);
  const signedMoney = (minor: number) => formatMoney(minor, data.currency, data.locale, true);
  const when = new When(data.locale, data.timeZone);
  const cart = new Cart(data.slug);
  let ordering: OrderingInfo = data.ordering;
  let products = new Map<string, MenuProduct>();
  /** Lines the server refused (409 ITEM_UNAVAILABLE), by `productId|optionId`, with why. */
  const refused = new Map<string, string>();
  /** The time picked at checkout: a day of the venue's zone (or "asap") and a slot's ISO instant. */
  const picked: { day: string; slot: string | null } = { day: 'asap', slot: null };
  let busy = false;

  /** Whether this page takes orders at all: now, or for later. */
  const canAdd = () => data.orderTypes.length > 0 && ordering.reason !== 'not_accepting';

  // The modifier groups, option ids and availability come from the guest menu JSON. A failed load
  // (a blip, a per-IP 429 on shared Wi-Fi) is tried again on the next "Add", and says so.
  let menuLoad: Promise<boolean> | null = null;
  let refreshTimer: number | undefined;
  const loadMenu = (fresh = false): Promise<boolean> => {
    if (fresh) menuLoad = null;
    menuLoad ??= fetch(data.menuUrl, { headers: { accept: 'application/json' }, cache: fresh ? 'no-cache' : 'default' })
      .then((res) => (res.ok ? (res.json() as Promise<GuestMenu>) : Promise.reject(new Error(String(res.status)))))
      .then((menu) => {
        products = new Map(menu.products.map((p) => [p.id, p]));
        const before = JSON.stringify(ordering);
        if (menu.ordering) ordering = menu.ordering;
        cart.reconcile(products);
        showAvailability();
        renderCartBar();
        if (cartDialog.open) {
          // The picker is made again only when ordering changed: the guest may be using it.
          if (JSON.stringify(ordering) !== before) renderWhen();
          refreshCart();
        }
        planRefresh(menu);
        return true;
      })
      .catch(() => {
        menuLoad = null;
        return false;
      });
    return menuLoad;
  };

  /** Reads the menu again when the next mark ends or ordering opens or closes (no reload needed). */
  function planRefresh(menu: GuestMenu): void {
    const now = Date.now();
    const times = [ordering.open ? ordering.closesAt : ordering.opensAt];
    for (const p of menu.products) {
      times.push(p.availability?.until ?? null);
      for (const g of p.modifierGroups) for (const o of g.options) times.push(o.availability?.until ?? null);
    }
    let next = Infinity;
    for (const time of times) {
      const at = time === null ? NaN : Date.parse(time);
      if (at > now && at < next) next = at;
    }
    window.clearTimeout(refreshTimer);
    if (next - now <= REFRESH_AHEAD_MS) refreshTimer = window.setTimeout(() => void loadMenu(true), next - now + 1000);
  }

  const announce = (text: string) => {
    const el = byId('announce');
    if (el) el.textContent = text;
  };

  // --- Availability on the cards, and the ordering notice ---------------------------------
  const addButtons = Array.from(document.querySelectorAll<HTMLButtonElement>('button.add[data-product]'));

  /** Greys the cards of what is unavailable now, with why and until when; shows the others' Add. */
  function showAvailability(): void {
    const now = Date.now();
    for (const button of addButtons) {
      const product = products.get(button.dataset.product ?? '');
      const card = button.closest('.card');
      if (!product || !card) continue;
      const label = availabilityLabel(product.availability, when, now, t);
      card.classList.toggle('sold-out', label !== null);
      let note = card.querySelector('.availability');
      if (label === null) note?.remove();
      else {
        if (!note) {
          note = h('p', { class: 'availability' });
          card.querySelector('.card-foot')?.before(note);
        }
        if (note.textContent !== label) note.textContent = label;
      }
      button.hidden = !canAdd() || label !== null;
    }
    // A page made while the venue took no orders keeps the server's notice (it shows no Add).
    const notice = byId('ordering-notice');
    if (notice && data.orderTypes.length > 0) {
      const text = orderingNotice(ordering, true, when, now, t) ?? '';
      if (notice.textContent !== text) notice.textContent = text;
      notice.hidden = text === '';
    }
  }

  // --- Product dialog ---------------------------------------------------------------------
  const productDialog = h('dialog', { class: 'sheet', id: 'product-dialog', 'aria-labelledby': 'pd-title' });
  document.body.append(productDialog);

  /**
   * An option's name and its price adjustment, each isolated (issue 38): a Latin name or a price
   * in an Arabic dialog keeps its own direction, and the sign stays by its number.
   */
  function optionLabel(name: string, adjustment: number): (HTMLElement | string)[] {
    return adjustment === 0 ? [h('bdi', {}, name)] : [h('bdi', {}, name), ' ', h('bdi', { class: 'adjustment' }, signedMoney(adjustment))];
  }

  /**
   * A − / + stepper with its count, from `min` to what `max()` allows now (an option's room changes
   * as the rest of its group is chosen: `update` follows). A button at its limit is aria-disabled,
   * not disabled, so it keeps the focus of a guest pressing it up to the limit and says why it does
   * nothing. The count is a live region: a screen reader hears it change.
   */
  function stepper(
    value: number,
    o: {
      name: Record<string, string>;
      less: string;
      more: string;
      min: number;
      max: () => number;
      onSet: (n: number) => void;
      off?: boolean;
    },
  ): { el: HTMLElement; update: () => void } {
    let current = value;
    const output = h('output', { 'aria-live': 'polite' }, value);
    const limit = (button: HTMLButtonElement, reached: boolean) => {
      if (reached) button.setAttribute('aria-disabled', 'true');
      else button.removeAttribute('aria-disabled');
    };
    const update = () => {
      limit(less, current <= o.min);
      limit(more, current >= o.max());
    };
    const press = (delta: number) => () => {
      const next = current + delta;
      if (o.off || next < o.min || next > o.max()) return;
      current = next;
      output.textContent = String(current);
      o.onSet(current);
      update();
    };
    const less = h('button', { type: 'button', class: 'step less', 'aria-label': o.less, disabled: o.off, onclick: press(-1) }, '−');
    const more = h('button', { type: 'button', class: 'step more', 'aria-label': o.more, disabled: o.off, onclick: press(1) }, '+');
    update();
    return { el: h('div', { class: 'stepper', role: 'group', ...o.name }, less, output, more), update };
  }

  /**
   * A modifier group as a fieldset whose legend says its rule (decisions 15): radios for a single
   * choice ("None" first when it is optional), a stepper per option that may be taken more than
   * once, a checkbox per option taken once. `quantities` is the dialog's state; each control keeps
   * it and calls `onChange`; `updates` collects what follows the group's room (a full group takes
   * no more). An unavailable option is greyed, says why, and cannot be chosen.
   */
  function groupFieldset(
    group: MenuGroup,
    quantities: Map<string, number>,
    usable: (optionId: string) => boolean,
    onChange: () => void,
    updates: (() => void)[],
  ): HTMLFieldSetElement {
    const now = Date.now();
    const cap = optionCap(group);
    const room = () => (group.maxSelections ?? Infinity) - chosenIn(group, quantities);
    const rows = group.options.map((o) => {
      const id = `o-${o.id}`;
      const off = !usable(o.id);
      const status = off ? availabilityLabel(o.availability, when, now, t) : null;
      // What the option brings in allergens, in words; then why it cannot be chosen, if so.
      const allergens = namesOf(o.allergens, data.food.allergens);
      const text = h(
        'span',
        { id: `ot-${o.id}` },
        ...optionLabel(o.name, o.priceAdjustment),
        allergens.length > 0 ? h('small', { class: 'choice-allergens' }, `${t.allergens}: ${allergens.join(t.comma)}`) : null,
        status ? h('small', { class: 'choice-status' }, status) : null,
      );
      const kind = off ? 'choice unavailable' : 'choice';
      if (group.type === 'single_choice') {
        return h(
          'label',
          { class: kind, for: id },
          h('input', {
            type: 'radio',
            id,
            name: `g-${group.id}`,
            value: o.id,
            checked: quantities.has(o.id),
            disabled: off,
            onchange: () => pick(o.id),
          }),
          text,
        );
      }
      if (takesStepper(group)) {
        const count = stepper(quantities.get(o.id) ?? 0, {
          name: { 'aria-labelledby': `ot-${o.id}` },
          less: fill(t.decreaseNamed, { name: o.name }),
          more: fill(t.increaseNamed, { name: o.name }),
          min: 0,
          max: () => Math.min(cap, (quantities.get(o.id) ?? 0) + room()),
          off,
          onSet: (n) => {
            if (n > 0) quantities.set(o.id, n);
            else quantities.delete(o.id);
            onChange();
          },
        });
        updates.push(count.update);
        return h('div', { class: `${kind} choice-qty` }, text, count.el);
      }
      const box = h('input', {
        type: 'checkbox',
        id,
        value: o.id,
        checked: quantities.has(o.id),
        disabled: off,
        onchange: () => {
          if (box.checked) quantities.set(o.id, 1);
          else quantities.delete(o.id);
          onChange();
        },
      });
      // A full group takes no other option until one is unticked.
      updates.push(() => {
        box.disabled = off || (!box.checked && room() <= 0);
      });
      return h('label', { class: kind, for: id }, box, text);
    });
    function pick(optionId: string | null): void {
      for (const o of group.options) quantities.delete(o.id);
      if (optionId !== null) quantities.set(optionId, 1);
      onChange();
    }
    const noneId = `o-none-${group.id}`;
    const none =
      group.type === 'single_choice' && group.minSelections === 0
        ? h(
            'label',
            { class: 'choice', for: noneId },
            h('input', {
              type: 'radio',
              id: noneId,
              name: `g-${group.id}`,
              value: '',
              checked: chosenIn(group, quantities) === 0,
              onchange: () => pick(null),
            }),
            h('span', {}, t.none),
          )
        : null;
    const errorId = `err-g-${group.id}`;
    return h(
      'fieldset',
      { class: 'group', 'data-group': group.id, 'aria-describedby': errorId },
      // The dot is for the eye; a screen reader reads "Sauces Choose 2–3".
      h('legend', {}, group.name, ' ', h('span', { class: 'rule' }, h('span', { 'aria-hidden': 'true' }, '· '), ruleText(group, t))),
      none,
      ...rows,
      h('p', { class: 'field-error', id: errorId, hidden: true }),
    );
  }

  /**
   * The dish's food information in words (decisions 14): labels and spice, allergens, traces, and
   * nutrition per portion as a table; null when the dish says none.
   */
  function foodBox(product: MenuProduct): HTMLElement | null {
    const facts = foodFacts(product, t, data.food, data.locale);
    const tags = [
      ...facts.labels.map((name) => h('span', { class: 'tag tag-diet' }, name)),
      facts.spice ? h('span', { class: 'tag tag-spice', id: 'pd-spice' }, facts.spice.text) : null,
    ].filter((x) => x !== null);
    const line = (label: string, names: string[], id: string) =>
      names.length > 0 ? h('p', { class: 'meta', id }, h('span', { class: 'label' }, `${label}:`), ` ${names.join(t.comma)}`) : null;
    const table =
      facts.nutrition.length > 0
        ? h(
            'table',
            { class: 'nutrition', id: 'pd-nutrition' },
            h('caption', {}, t.nutrition),
            h(
              'tbody',
              {},
              ...facts.nutrition.map((r) =>
                h('tr', { class: r.part ? 'part' : null }, h('th', { scope: 'row' }, r.label), h('td', {}, r.value)),
              ),
            ),
          )
        : null;
    const parts = [
      // Spaced, so the words read apart (flex items: the space does not show).
      tags.length > 0 ? h('p', { class: 'tags' }, ...tags.flatMap((tag, i) => (i === 0 ? [tag] : [' ', tag]))) : null,
      line(t.allergens, facts.allergens, 'pd-allergens'),
      line(t.mayContain, facts.mayContain, 'pd-may-contain'),
      table,
    ].filter((x) => x !== null);
    return parts.length > 0 ? h('div', { class: 'food' }, ...parts) : null;
  }

  /** The dish's photo at the top of its dialog, whole (not cropped), from the stored sizes. */
  function productPhoto(product: MenuProduct): HTMLElement | null {
    const image = product.image;
    if (!image || image.variants.length === 0) return null;
    const smallest = image.variants[image.variants.length - 1];
    return h('img', {
      class: 'dialog-image',
      src: smallest.url,
      srcset: image.variants.map((v) => `${v.url} ${v.width}w`).join(', '),
      sizes: '(min-width: 48rem) 36rem, 100vw',
      width: smallest.width,
      height: smallest.height,
      alt: '',
      decoding: 'async',
    });
  }

  function openProduct(product: MenuProduct): void {
    const now = Date.now();
    const unavailable = new Set(
      [...optionsOf(product).values()].filter((o) => availabilityLabel(o.availability, when, now, t) !== null).map((o) => o.id),
    );
    const usable = (optionId: string) => !unavailable.has(optionId);
    // The dialog's state: each option's quantity, the venue's defaults chosen to begin with.
    const quantities = defaultQuantities(product.modifierGroups, usable);
    const updates: (() => void)[] = [];
    let quantity = 1;
    const chosen = (): CartModifier[] =>
      product.modifierGroups.flatMap((g) =>
        g.options
          .filter((o) => usable(o.id) && (quantities.get(o.id) ?? 0) > 0)
          .map((o) => ({ optionId: o.id, quantity: quantities.get(o.id) as number })),
      );
    /** Each group whose rule is not met yet, with what it needs, in the dialog's order. */
    const needs = () =>
      product.modifierGroups
        .map((group) => ({ group, need: groupNeed(group, quantities, t) }))
        .filter((n): n is { group: MenuGroup; need: string } => n.need !== null);

    // "Add" says why it does nothing while a rule is not met (aria-disabled keeps it in the tab
    // order, described by the reasons, and pressing it leads to the first group that needs a choice).
    const reasons = h('div', { class: 'reasons', id: 'pd-reasons', 'aria-live': 'polite' });
    const addButton = h('button', { type: 'submit', class: 'primary', id: 'pd-add', 'aria-describedby': 'pd-reasons' });
    const markGroup = (group: MenuGroup, need: string | null) => {
      const error = byId(`err-g-${group.id}`);
      if (error) {
        error.hidden = need === null;
        error.textContent = need ?? '';
      }
      productDialog.querySelector(`[data-group="${CSS.escape(group.id)}"]`)?.toggleAttribute('data-invalid', need !== null);
    };
    const refresh = () => {
      for (const update of updates) update();
      addButton.textContent = fill(t.addToOrder, { price: money((unitPrice(product, chosen()) - unitSaving(product)) * quantity) });
      const missing = needs();
      if (missing.length > 0) addButton.setAttribute('aria-disabled', 'true');
      else addButton.removeAttribute('aria-disabled');
      const said = missing.map((m) => m.need).join('\n');
      if (Array.from(reasons.children, (el) => el.textContent).join('\n') !== said)
        replace(reasons, ...missing.map((m) => h('span', {}, m.need)));
      // A group marked when "Add" was pressed keeps saying what it needs, until it is met.
      for (const group of product.modifierGroups) {
        if (productDialog.querySelector(`[data-group="${CSS.escape(group.id)}"][data-invalid]`))
          markGroup(group, groupNeed(group, quantities, t));
      }
    };
    const form = h(
      'form',
      { method: 'dialog', class: 'sheet-body', novalidate: true },
      productPhoto(product),
      h(
        'header',
        { class: 'sheet-head' },
        h('h2', { id: 'pd-title' }, product.name),
        h('button', { type: 'button', class: 'close', 'aria-label': t.close, onclick: () => productDialog.close() }, '×'),
      ),
      product.description ? h('p', { class: 'desc' }, product.description) : null,
      h('p', { class: 'price' }, money(basePrice(product))),
      foodBox(product),
      ...product.modifierGroups.map((g) => groupFieldset(g, quantities, usable, refresh, updates)),
      h(
        'div',
        { class: 'sheet-foot' },
        reasons,
        stepper(1, {
          name: { 'aria-label': t.quantity },
          less: t.decrease,
          more: t.increase,
          min: 1,
          max: () => MAX_LINE_QUANTITY,
          onSet: (n) => {
            quantity = n;
            refresh();
          },
        }).el,
        addButton,
      ),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      // The rules the server enforces (decisions 15): every group marked that needs more.
      const missing = needs();
      for (const group of product.modifierGroups) markGroup(group, missing.find((m) => m.group === group)?.need ?? null);
      if (missing.length > 0) {
        const first = productDialog.querySelector(`[data-group="${CSS.escape(missing[0].group.id)}"]`);
        first?.querySelector<HTMLElement>('input:enabled, button.more:enabled:not([aria-disabled])')?.focus();
        return;
      }
      cart.add({ productId: product.id, quantity, modifiers: chosen() });
      productDialog.close();
      renderCartBar();
      announce(fill(t.added, { name: product.name }));
    });
    replace(productDialog, form);
    refresh();
    productDialog.showModal();
  }

  // Until the menu JSON is in, the server's first paint says what is sold out.
  for (const button of addButtons) {
    button.hidden = !canAdd() || !!button.closest('.card')?.classList.contains('sold-out');
    button.addEventListener('click', async () => {
      if (!(await loadMenu())) return announce(t.menuError);
      const product = products.get(button.dataset.product ?? '');
      if (!product) return;
      const status = availabilityLabel(product.availability, when, Date.now(), t);
      if (status !== null) return announce(fill(t.nameStatus, { name: product.name, status }));
      openProduct(product);
    });
  }

  // --- Cart -------------------------------------------------------------------------------
  const cartBar = byId('cart-bar');
  const cartDialog = h('dialog', { class: 'sheet', id: 'cart-dialog', 'aria-labelledby': 'cart-title' });
  const checkout = checkoutForm(t);
  document.body.append(cartDialog);
  let orderType: GuestOrderType = data.orderTypes[0] ?? 'dine_in';

  function renderCartBar(): void {
    if (!cartBar) return;
    const show = canAdd() && cart.count > 0 && products.size > 0;
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

  /**
   * Why a line cannot be ordered: its product or an option is unavailable now (the menu JSON), or
   * the server refused it (409 ITEM_UNAVAILABLE); null when it can.
   */
  function lineProblem(line: CartLine): string | null {
    const product = products.get(line.productId);
    if (!product) return null;
    const now = Date.now();
    const own = availabilityLabel(product.availability, when, now, t) ?? refused.get(`${line.productId}|`) ?? null;
    if (own !== null) return own;
    const options = optionsOf(product);
    for (const m of line.modifiers) {
      const o = options.get(m.optionId);
      const status = o ? (availabilityLabel(o.availability, when, now, t) ?? refused.get(`${line.productId}|${m.optionId}`) ?? null) : null;
      if (o && status !== null) return fill(t.nameStatus, { name: o.name, status });
    }
    return null;
  }

  const hasProblems = () => cart.lines.some((line) => lineProblem(line) !== null);

  function removeLine(index: number, name: string): void {
    cart.setQuantity(index, 0);
    for (const key of [...refused.keys()]) {
      if (!cart.lines.some((l) => key.startsWith(`${l.productId}|`))) refused.delete(key);
    }
    refreshCart();
    announce(fill(t.removed, { name }));
    const formError = byId('form-error');
    if (formError && formError.textContent === t.unavailableInCart && !hasProblems()) {
      formError.hidden = true;
      formError.textContent = '';
    }
    // Focus stays in the dialog: the next line to remove, else placing the order.
    const place = byId<HTMLButtonElement>('place-order');
    (
      cartDialog.querySelector<HTMLElement>('button.remove') ??
      (place && !place.disabled ? place : cartDialog.querySelector<HTMLElement>('.close'))
    )?.focus();
  }

  function linesList(): HTMLElement {
    if (cart.count === 0) return h('p', { class: 'empty' }, t.emptyOrder);
    let problems = 0;
    const items = cart.lines.map((line, index) => {
      const product = products.get(line.productId);
      if (!product) return null;
      const options = optionsOf(product);
      const names = isolatedList(
        line.modifiers.map((m) => {
          const name = options.get(m.optionId)?.name ?? '';
          return m.quantity > 1 ? `${name} ×${m.quantity}` : name;
        }),
        t.comma,
      );
      const linePrice = (quantity: number) => money(unitPrice(product, line.modifiers) * quantity);
      const price = h('span', { class: 'line-price' }, linePrice(line.quantity));
      const problem = lineProblem(line);
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
              if (n === 0) return removeLine(index, product.name);
              cart.setQuantity(index, n);
              price.textContent = linePrice(n);
              refreshSums();
            },
          }).el,
          price,
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
            onclick: () => removeLine(index, product.name),
          },
          t.remove,
        ),
        price,
      );
    });
    return h(
      'div',
      {},
      problems > 0 ? h('p', { class: 'line-alert', id: 'cart-problem' }, t.unavailableInCart) : null,
      h('ul', { class: 'lines' }, ...items),
    );
  }

  /** As the server totals it (decisions 2): subtotal + delivery fee - discount, thresholds on the subtotal. */
  function sums(): { subtotal: number; discount: number; fee: number; total: number } {
    const subtotal = cart.subtotal(products);
    const discount = cart.discount(products);
    const fee = fees(subtotal);
    return { subtotal, discount, fee, total: subtotal + fee - discount };
  }

  function totals(): HTMLElement {
    const { subtotal, discount, fee, total } = sums();
    return h(
      'div',
      { id: 'cart-totals' },
      h(
        'dl',
        { class: 'totals' },
        h('div', {}, h('dt', {}, t.subtotal), h('dd', {}, money(subtotal))),
        discount > 0 ? h('div', {}, h('dt', {}, t.discount), h('dd', {}, signedMoney(-discount))) : null,
        fee > 0 ? h('div', {}, h('dt', {}, t.deliveryFee), h('dd', {}, money(fee))) : null,
        h('div', { class: 'total' }, h('dt', {}, t.total), h('dd', {}, money(total))),
      ),
      data.minOrderMinor > 0 ? h('p', { class: 'hint' }, fill(t.minOrder, { amount: money(data.minOrderMinor) })) : null,
    );
  }

  function refreshCart(): void {
    const lines = byId('cart-lines');
    if (lines) replace(lines, linesList());
    refreshSums();
  }

  function refreshSums(): void {
    byId('cart-totals')?.replaceWith(totals());
    const footTotal = byId('foot-total');
    if (footTotal) footTotal.textContent = money(sums().total);
    renderCartBar();
    updatePlace();
  }

  // --- When: now, or a time the guest picks (scheduled orders, decisions 13) ---------------------

  /** The slot picked, as an ISO instant; null for an order for now. */
  function chosenSlot(): string | null {
    return byId('f-when') && picked.day !== 'asap' ? picked.slot : null;
  }

  /** Placing is offered for now while ordering is open, and for a picked time while scheduling is on. */
  function canPlace(): boolean {
    return canAdd() && cart.count > 0 && !hasProblems() && (chosenSlot() !== null || ordering.open);
  }

  function updatePlace(): void {
    const place = byId<HTMLButtonElement>('place-order');
    if (place && !busy) place.disabled = !canPlace();
  }

  /**
   * The checkout's "when": why ordering is closed now, if it is; with scheduled orders, a day
   * ("As soon as possible" first while open) and a quarter hour inside the opening hours.
   */
  function whenBox(): HTMLElement {
    const now = Date.now();
    const closed = orderingMessage(ordering, when, now, t);
    const days = ordering.scheduledOrders.enabled ? slotsByDay(slotTimes(data.windows, now, ordering), when) : [];
    if (days.length === 0) {
      const text = closed && ordering.scheduledOrders.enabled ? `${closed} ${t.noSlots}` : closed;
      return h('div', { id: 'when-box' }, text ? h('p', { class: 'notice', id: 'checkout-closed' }, text) : null);
    }
    const known = (day: string) => days.some((d) => String(d.day) === day);
    if (picked.day === 'asap' ? !ordering.open : !known(picked.day)) picked.day = ordering.open ? 'asap' : String(days[0].day);

    const timeSelect = h('select', { id: 'f-scheduledFor', name: 'scheduledFor', 'aria-describedby': 'err-scheduledFor' });
    const timeField = h(
      'div',
      { class: 'field', id: 'field-scheduledFor' },
      h('label', { for: 'f-scheduledFor' }, t.time),
      timeSelect,
      h('p', { class: 'field-error', id: 'err-scheduledFor', hidden: true }),
    );
    const fillTimes = () => {
      const day = days.find((d) => String(d.day) === picked.day);
      timeField.hidden = !day;
      if (!day) return;
      const values = day.slots.map((slot) => new Date(slot).toISOString());
      if (picked.slot === null || !values.includes(picked.slot)) picked.slot = values[0];
      replace(
        timeSelect,
        ...day.slots.map((slot, i) => h('option', { value: values[i], selected: values[i] === picked.slot }, when.time(slot))),
      );
    };
    const changed = () => {
      // What the server refused was for the time picked before.
      refused.clear();
      refreshCart();
    };
    const daySelect = h(
      'select',
      { id: 'f-when', name: 'when' },
      ordering.open ? h('option', { value: 'asap', selected: picked.day === 'asap' }, t.asap) : null,
      ...days.map((d) => h('option', { value: String(d.day), selected: String(d.day) === picked.day }, when.dayLabel(d.slots[0], now))),
    );
    daySelect.addEventListener('change', () => {
      picked.day = daySelect.value;
      picked.slot = null;
      fillTimes();
      changed();
    });
    timeSelect.addEventListener('change', () => {
      picked.slot = timeSelect.value;
      changed();
    });
    fillTimes();
    return h(
      'div',
      { id: 'when-box' },
      closed ? h('p', { class: 'hint', id: 'checkout-closed' }, closed) : null,
      h('div', { class: 'field', id: 'field-when' }, h('label', { for: 'f-when' }, t.when), daySelect),
      timeField,
    );
  }

  function renderWhen(): void {
    byId('when-box')?.replaceWith(whenBox());
    updatePlace();
  }

  function openCart(): void {
    // "Place order" and the total stay at the bottom of the screen (issue 38), outside the form so
    // they stick however long the cart; the button submits the form by its id.
    const place = h('button', { type: 'submit', form: 'checkout', class: 'primary', id: 'place-order', disabled: true }, t.placeOrder);
    const form = h(
      'form',
      { id: 'checkout', novalidate: true },
      h('p', { class: 'form-error', id: 'form-error', role: 'alert', tabindex: -1, hidden: true }),
      data.orderTypes.length > 1
        ? checkout.radios(
            'type',
            t.orderType,
            data.orderTypes,
            (v) => t[`type_${v as GuestOrderType}`],
            orderType,
            (v) => {
              orderType = v as GuestOrderType;
              checkout.forType(orderType);
              refreshCart();
            },
          )
        : h('p', { class: 'hint' }, data.table ? tableLabel(data.table.name, t) : t[`type_${orderType}`]),
      whenBox(),
      checkout.radios('paymentMethod', t.payment, data.payments, (v) => t[`pay_${v as 'cash' | 'terminal'}`], data.payments[0]),
      ...checkout.contactFields(),
      checkout.field('comment', fill(t.optional, { label: t.comment }), h('textarea', { rows: 2, maxlength: 1000 })),
    );
    checkout.clearOnFix(form);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      // A second tap while the first is in flight does nothing; a retry after an error reuses the
      // same Idempotency-Key, so the server makes one order either way.
      if (busy || !canPlace()) return;
      checkout.clearErrors(form);
      if (!checkout.checkNeeded(form, orderType)) return;
      busy = true;
      place.disabled = true;
      place.textContent = t.placing;
      place.setAttribute('aria-busy', 'true');
      try {
        await placeOrder(form);
      } finally {
        busy = false;
        place.disabled = !canPlace();
        place.textContent = t.placeOrder;
        place.removeAttribute('aria-busy');
      }
    });
    replace(
      cartDialog,
      h(
        'div',
        { class: 'sheet-body' },
        h(
          'header',
          { class: 'sheet-head' },
          h('h2', { id: 'cart-title' }, t.yourOrder),
          h('button', { type: 'button', class: 'close', 'aria-label': t.close, onclick: () => cartDialog.close() }, '×'),
        ),
        h('div', { id: 'cart-lines' }, linesList()),
        totals(),
        form,
        h(
          'div',
          { class: 'sheet-foot checkout-foot' },
          h('p', { class: 'foot-total' }, h('span', {}, t.total), ' ', h('strong', { id: 'foot-total' }, money(sums().total))),
          place,
        ),
      ),
    );
    checkout.forType(orderType);
    updatePlace();
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
      scheduledFor: chosenSlot() ?? undefined,
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
      checkout.showErrors([t.networkError]);
      return;
    }
    if (res.status === 201 || res.status === 200) {
      const token = (res.headers.get('location') ?? '').split('/').pop() ?? '';
      cart.clear();
      window.location.assign(`${data.statusPageBase}${encodeURIComponent(token)}?lang=${encodeURIComponent(data.locale)}`);
      return;
    }
    const envelope = (await res.json().catch(() => null)) as ErrorEnvelope | null;
    if (res.status === 409 && envelope?.code === 'ITEM_UNAVAILABLE') {
      // Sold out since the menu was read: each line it names says so, with a button to remove it.
      const why = chosenSlot() === null ? t.notAvailableNow : t.notAvailableThen;
      for (const item of envelope.details?.items ?? []) refused.set(`${item.productId}|${item.optionId ?? ''}`, why);
      await loadMenu(true);
      refreshCart();
      checkout.showErrors([t.unavailableInCart]);
      return;
    }
    if (res.status === 409 && envelope?.code === 'ORDERING_CLOSED') {
      // Closed since the page was read: the notice says why and until when; a time can still be
      // picked when the venue takes scheduled orders.
      ordering = {
        ...ordering,
        open: false,
        reason: envelope.details?.reason ?? 'closed',
        opensAt: envelope.details?.opensAt ?? null,
        closesAt: null,
      };
      showAvailability();
      renderWhen();
      checkout.showErrors([orderingMessage(ordering, when, Date.now(), t) ?? t.closedHours]);
      void loadMenu(true);
      return;
    }
    checkout.showErrors(envelope?.errors?.length ? envelope.errors : [envelope?.message ?? t.networkError]);
  }

  void loadMenu();
  renderCartBar();
}
