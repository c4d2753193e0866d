// The menu page's script: the product dialog (modifiers with the server's rules, a live price),
// the cart and placing the order, now or for a time the guest picks. The menu itself is already on
// the page, server-rendered; what is sold out and whether ordering is open follow the guest menu
// JSON. This puts the parts together: the state (menu-state.ts) and the views that draw it.
import type { PageData } from '../../src/modules/guest-page/shared/page-data.js';
import { CartDialog } from './cart-dialog.js';
import { Cart } from './cart.js';
import { MenuCards } from './menu-cards.js';
import { MenuFeed } from './menu-feed.js';
import { MenuState } from './menu-state.js';
import type { GuestMenu } from './menu-types.js';
import { pageView } from './page-view.js';
import { ProductDialog } from './product-dialog.js';

export function startMenu(data: PageData): void {
  const view = pageView(data);
  const state = new MenuState(data, new Cart(data.slug), view.when);

  const feed = new MenuFeed(
    (fresh) =>
      fetch(data.menuUrl, { headers: { accept: 'application/json' }, cache: fresh ? 'no-cache' : 'default' }).then((res) =>
        res.ok ? (res.json() as Promise<GuestMenu>) : Promise.reject(new Error(String(res.status))),
      ),
    (menu) => {
      const orderingChanged = state.applyMenu(menu);
      cards.show();
      cart.renderBar();
      if (cart.isOpen) {
        // The picker is made again only when ordering changed: the guest may be using it.
        if (orderingChanged) cart.renderWhen();
        cart.refresh();
      }
      return state.ordering;
    },
  );
  const loadMenu = () => feed.read();

  const product = new ProductDialog(view, state, () => cart.renderBar());
  const cards = new MenuCards(view, state, loadMenu, (p) => product.open(p));
  const cart = new CartDialog(view, state, { orderingChanged: () => cards.show(), reloadMenu: () => feed.read(true) });

  void loadMenu();
  cart.renderBar();
}
