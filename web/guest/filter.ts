// The guest's food filter: hide every dish that contains the allergens ticked, and
// keep vegetarian or vegan dishes only. It reads the codes the server put on each card, so it works
// before the menu JSON is in, and it is kept for the visit (session storage, per venue).
import { cleanFilter, filteredOut, NO_FILTER, type FoodFilter } from '../../src/modules/guest-page/shared/food.js';
import type { PageData } from '../../src/modules/guest-page/shared/page-data.js';
import { fill } from '../../src/modules/guest-page/shared/strings.js';
import { byId, h, replace } from '../shared/dom.js';
import { load, save } from './storage.js';

const codesOf = (value: string | undefined) => (value ? value.split(' ') : []);
const isActive = (f: FoodFilter) => f.hide.length > 0 || f.diet !== 'all';

export function startFilter(data: PageData): void {
  const button = byId<HTMLButtonElement>('open-filter');
  if (!button) return;
  const opener: HTMLButtonElement = button;
  const t = data.strings;
  const codes = Object.keys(data.food.allergens);
  const key = `carta.filter.${data.slug}`;
  let filter = cleanFilter(load(key, 'sessionStorage') ?? NO_FILTER, codes);

  const cards = Array.from(document.querySelectorAll<HTMLElement>('#menu li.card'));
  const sections = Array.from(document.querySelectorAll<HTMLElement>('#menu section.category'));
  const barCount = byId('filter-count');
  const dialogCount = h('p', { class: 'filter-count', id: 'filter-dialog-count', 'aria-live': 'polite' });

  /** Hides the dishes the filter takes out, and a category left empty with its link; says how many. */
  function apply(): void {
    let hidden = 0;
    for (const card of cards) {
      const out = filteredOut(codesOf(card.dataset.allergens), codesOf(card.dataset.labels), filter);
      card.hidden = out;
      if (out) hidden += 1;
    }
    for (const section of sections) {
      const empty = !section.querySelector('li.card:not([hidden])');
      section.hidden = empty;
      const link = document.querySelector(`nav.cats a[href="#${CSS.escape(section.id)}"]`)?.closest('li');
      if (link) link.hidden = empty;
    }
    const none = byId('filter-empty');
    if (none) none.hidden = cards.length === 0 || hidden < cards.length;
    const text = isActive(filter) ? fill(t.hiddenCount, { count: hidden }) : '';
    if (barCount && barCount.textContent !== text) barCount.textContent = text;
    dialogCount.textContent = fill(t.hiddenCount, { count: hidden });
    opener.classList.toggle('active', isActive(filter));
  }

  function update(next: FoodFilter): void {
    filter = next;
    save(key, isActive(filter) ? filter : null, 'sessionStorage');
    apply();
  }

  const dialog = h('dialog', { class: 'sheet', id: 'filter-dialog', 'aria-labelledby': 'filter-title' });
  document.body.append(dialog);

  function open(): void {
    const checks = codes.map((code) =>
      h(
        'label',
        { class: 'choice', for: `fa-${code}` },
        h('input', { type: 'checkbox', id: `fa-${code}`, name: 'hide', value: code, checked: filter.hide.includes(code) }),
        data.food.allergens[code],
      ),
    );
    const diets = (['all', 'vegetarian', 'vegan'] as const).map((diet) =>
      h(
        'label',
        { class: 'choice', for: `fd-${diet}` },
        h('input', { type: 'radio', id: `fd-${diet}`, name: 'diet', value: diet, checked: filter.diet === diet }),
        diet === 'all' ? t.dietAll : (data.food.labels[diet] ?? diet),
      ),
    );
    const read = (): FoodFilter => ({
      hide: codes.filter((code) => byId<HTMLInputElement>(`fa-${code}`)?.checked),
      diet: (dialog.querySelector<HTMLInputElement>('input[name="diet"]:checked')?.value ?? 'all') as FoodFilter['diet'],
    });
    const form = h(
      'form',
      { method: 'dialog', class: 'sheet-body' },
      h(
        'header',
        { class: 'sheet-head' },
        h('h2', { id: 'filter-title' }, t.filter),
        h('button', { type: 'button', class: 'close', 'aria-label': t.close, onclick: () => dialog.close() }, '×'),
      ),
      h(
        'fieldset',
        { class: 'group filter-allergens', 'aria-describedby': 'filter-traces' },
        h('legend', {}, t.hideContaining),
        h('p', { class: 'hint', id: 'filter-traces' }, t.tracesShown),
        ...checks,
      ),
      h('fieldset', { class: 'group' }, h('legend', {}, t.diet), ...diets),
      // The count stays in sight while the guest ticks (the foot is sticky).
      h(
        'div',
        { class: 'sheet-foot filter-foot' },
        dialogCount,
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            id: 'filter-clear',
            onclick: () => {
              for (const input of dialog.querySelectorAll<HTMLInputElement>('input')) input.checked = input.value === 'all';
              update(NO_FILTER);
            },
          },
          t.showAll,
        ),
        h('button', { type: 'submit', class: 'primary', id: 'filter-done' }, t.done),
      ),
    );
    form.addEventListener('change', () => update(read()));
    replace(dialog, form);
    apply();
    dialog.showModal();
  }

  opener.addEventListener('click', open);
  // The server renders the bar disabled, in its place from the first paint (no layout shift).
  opener.disabled = false;
  apply();
}
