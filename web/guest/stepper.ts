// A − / + stepper with its count: an option's quantity in the product dialog, a line's in the cart.
import { h } from '../shared/dom.js';

export interface StepperOptions {
  /** What names the group of buttons (aria-label or aria-labelledby). */
  name: Record<string, string>;
  less: string;
  more: string;
  min: number;
  /** The most allowed now: an option's room changes as the rest of its group is chosen (`update` follows). */
  max: () => number;
  onSet: (n: number) => void;
  off?: boolean;
}

/**
 * From `min` to what `max()` allows now. A button at its limit is aria-disabled, not disabled, so it
 * keeps the focus of a guest pressing it up to the limit and says why it does nothing. The count is
 * a live region: a screen reader hears it change.
 */
export function stepper(value: number, o: StepperOptions): { el: HTMLElement; update: () => void } {
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
