// The server-rendered menu's cards as the script keeps them: each card's "Add" (which opens the
// product dialog once the menu JSON is in), what is unavailable now greyed with why and until when,
// and the ordering notice above the menu.
import { orderingNotice } from '../../src/modules/guest-page/shared/availability.js';
import { fill } from '../../src/modules/guest-page/shared/strings.js';
import { byId, h } from '../shared/dom.js';
import type { MenuState } from './menu-state.js';
import type { MenuProduct } from './menu-types.js';
import type { PageView } from './page-view.js';

export class MenuCards {
  private readonly addButtons = Array.from(document.querySelectorAll<HTMLButtonElement>('button.add[data-product]'));

  constructor(
    private readonly view: PageView,
    private readonly state: MenuState,
    /** Reads the menu JSON (once; again after a failure); false when it could not be read. */
    loadMenu: () => Promise<boolean>,
    openProduct: (product: MenuProduct) => void,
  ) {
    const { t } = view;
    // Until the menu JSON is in, the server's first paint says what is sold out.
    for (const button of this.addButtons) {
      button.hidden = !state.canAdd() || !!button.closest('.card')?.classList.contains('sold-out');
      button.addEventListener('click', async () => {
        if (!(await loadMenu())) return view.announce(t.menuError);
        const product = state.products.get(button.dataset.product ?? '');
        if (!product) return;
        const status = state.unavailable(product.availability);
        if (status !== null) return view.announce(fill(t.nameStatus, { name: product.name, status }));
        openProduct(product);
      });
    }
  }

  /** Greys the cards of what is unavailable now, with why and until when; shows the others' Add. */
  show(): void {
    const { state } = this;
    const { data, t, when } = this.view;
    const now = Date.now();
    for (const button of this.addButtons) {
      const product = state.products.get(button.dataset.product ?? '');
      const card = button.closest('.card');
      if (!product || !card) continue;
      const label = state.unavailable(product.availability, now);
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
      button.hidden = !state.canAdd() || label !== null;
    }
    // A page made while the venue took no orders keeps the server's notice (it shows no Add).
    const notice = byId('ordering-notice');
    if (notice && data.orderTypes.length > 0) {
      const text = orderingNotice(state.ordering, true, when, now, t) ?? '';
      if (notice.textContent !== text) notice.textContent = text;
      notice.hidden = text === '';
    }
  }
}
