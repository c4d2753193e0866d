// The product dialog: the dish's photo and food information, its modifier groups under the rules
// the server enforces, how many, and "Add" with the live price. Its state is a
// ProductChoice (product-choice.ts); this draws it and keeps it.
import { namesOf } from '../../src/modules/guest-page/shared/food.js';
import { fill } from '../../src/modules/guest-page/shared/strings.js';
import { chosenIn } from '../../src/shared/modifier-rules.js';
import { MAX_LINE_QUANTITY } from '../../src/shared/pricing.js';
import { byId, h, replace } from '../shared/dom.js';
import { basePrice, optionsOf } from './cart.js';
import { foodBox, productPhoto } from './food-box.js';
import type { MenuState } from './menu-state.js';
import type { MenuGroup, MenuProduct } from './menu-types.js';
import type { PageView } from './page-view.js';
import { ProductChoice } from './product-choice.js';
import { ruleText, takesStepper } from './rule-text.js';
import { stepper } from './stepper.js';

export class ProductDialog {
  private readonly dialog = h('dialog', { class: 'sheet', id: 'product-dialog', 'aria-labelledby': 'pd-title' });

  constructor(
    private readonly view: PageView,
    private readonly state: MenuState,
    /** The line went into the cart. */
    private readonly onAdded: () => void,
  ) {
    document.body.append(this.dialog);
  }

  open(product: MenuProduct): void {
    const { t, money } = this.view;
    const dialog = this.dialog;
    const now = Date.now();
    const unavailable = new Set(
      [...optionsOf(product).values()].filter((o) => this.state.unavailable(o.availability, now) !== null).map((o) => o.id),
    );
    const choice = new ProductChoice(product, (optionId) => !unavailable.has(optionId));
    const updates: (() => void)[] = [];

    // "Add" says why it does nothing while a rule is not met (aria-disabled keeps it in the tab
    // order, described by the reasons, and pressing it leads to the first group that needs a choice).
    const reasons = h('div', { class: 'reasons', id: 'pd-reasons', 'aria-live': 'polite' });
    const addButton = h('button', { type: 'submit', class: 'primary', id: 'pd-add', 'aria-describedby': 'pd-reasons' });
    const groupEl = (group: MenuGroup) => dialog.querySelector(`[data-group="${CSS.escape(group.id)}"]`);
    const markGroup = (group: MenuGroup, need: string | null) => {
      const error = byId(`err-g-${group.id}`);
      if (error) {
        error.hidden = need === null;
        error.textContent = need ?? '';
      }
      groupEl(group)?.toggleAttribute('data-invalid', need !== null);
    };
    const refresh = () => {
      for (const update of updates) update();
      addButton.textContent = fill(t.addToOrder, { price: money(choice.price()) });
      const missing = choice.needs(t);
      if (missing.length > 0) addButton.setAttribute('aria-disabled', 'true');
      else addButton.removeAttribute('aria-disabled');
      const said = missing.map((m) => m.need).join('\n');
      if (Array.from(reasons.children, (el) => el.textContent).join('\n') !== said)
        replace(reasons, ...missing.map((m) => h('span', {}, m.need)));
      // A group marked when "Add" was pressed keeps saying what it needs, until it is met.
      for (const group of product.modifierGroups) {
        if (groupEl(group)?.hasAttribute('data-invalid')) markGroup(group, choice.need(group, t));
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
        h('button', { type: 'button', class: 'close', 'aria-label': t.close, onclick: () => dialog.close() }, '×'),
      ),
      product.description ? h('p', { class: 'desc' }, product.description) : null,
      h('p', { class: 'price' }, money(basePrice(product))),
      foodBox(product, this.view),
      ...product.modifierGroups.map((g) => this.groupFieldset(g, choice, refresh, updates)),
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
            choice.quantity = n;
            refresh();
          },
        }).el,
        addButton,
      ),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      // The rules the server enforces: every group marked that needs more.
      const missing = choice.needs(t);
      for (const group of product.modifierGroups) markGroup(group, missing.find((m) => m.group === group)?.need ?? null);
      if (missing.length > 0) {
        groupEl(missing[0].group)?.querySelector<HTMLElement>('input:enabled, button.more:enabled:not([aria-disabled])')?.focus();
        return;
      }
      this.state.cart.add(choice.line());
      dialog.close();
      this.onAdded();
      this.view.announce(fill(t.added, { name: product.name }));
    });
    replace(dialog, form);
    refresh();
    dialog.showModal();
  }

  /**
   * A modifier group as a fieldset whose legend says its rule: radios for a single choice ("None"
   * first when it is optional), a stepper per option that may be taken more than once, a checkbox
   * per option taken once. Each control keeps `choice` and calls `onChange`; `updates` collects what
   * follows the group's room (a full group takes no more). An unavailable option is greyed, says
   * why, and cannot be chosen.
   */
  private groupFieldset(group: MenuGroup, choice: ProductChoice, onChange: () => void, updates: (() => void)[]): HTMLFieldSetElement {
    const { t, data } = this.view;
    const now = Date.now();
    const pick = (optionId: string | null) => {
      choice.pick(group, optionId);
      onChange();
    };
    const rows = group.options.map((o) => {
      const id = `o-${o.id}`;
      const off = !choice.usable(o.id);
      const status = off ? this.state.unavailable(o.availability, now) : null;
      // What the option brings in allergens, in words; then why it cannot be chosen, if so.
      const allergens = namesOf(o.allergens, data.food.allergens);
      const text = h(
        'span',
        { id: `ot-${o.id}` },
        ...this.optionLabel(o.name, o.priceAdjustment),
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
            checked: choice.quantities.has(o.id),
            disabled: off,
            onchange: () => pick(o.id),
          }),
          text,
        );
      }
      if (takesStepper(group)) {
        const count = stepper(choice.quantities.get(o.id) ?? 0, {
          name: { 'aria-labelledby': `ot-${o.id}` },
          less: fill(t.decreaseNamed, { name: o.name }),
          more: fill(t.increaseNamed, { name: o.name }),
          min: 0,
          max: () => choice.most(group, o.id),
          off,
          onSet: (n) => {
            choice.set(o.id, n);
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
        checked: choice.quantities.has(o.id),
        disabled: off,
        onchange: () => {
          choice.set(o.id, box.checked ? 1 : 0);
          onChange();
        },
      });
      // A full group takes no other option until one is unticked.
      updates.push(() => {
        box.disabled = off || (!box.checked && choice.room(group) <= 0);
      });
      return h('label', { class: kind, for: id }, box, text);
    });
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
              checked: chosenIn(group, choice.quantities) === 0,
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

  /** An option's name and its price adjustment, each isolated: a Latin name or a price in an Arabic dialog keeps its own direction, and the sign stays by its number. */
  private optionLabel(name: string, adjustment: number): (HTMLElement | string)[] {
    return adjustment === 0
      ? [h('bdi', {}, name)]
      : [h('bdi', {}, name), ' ', h('bdi', { class: 'adjustment' }, this.view.signedMoney(adjustment))];
  }
}
