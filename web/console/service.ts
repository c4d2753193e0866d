// The service controls: ordering open, paused or closed, with the pause buttons; the
// ordering settings for managers; dishes and ingredients marked sold out for an hour, until
// closing or until turned back, from a searchable list; what is sold out now, put back on sale.
import { byId, h, replace } from '../shared/dom.js';
import { api, messageOf } from './api.js';
import type { Ordering, Role, Service, ServiceItem } from './types.js';
import { choose, clearAlert, formatTime, showAlert } from './ui.js';

type Kind = 'products' | 'ingredients';
type Duration = 'hour' | 'closing' | 'back';

export interface ServiceOptions {
  role: Role;
  timezone: string;
  /** The preparation time was changed here: the board's late marks follow. */
  prepTimeChanged(minutes: number): void;
}

const HOUR_MS = 3_600_000;

/** A dish's category (an ingredient has none). */
const categoryOf = (item: ServiceItem): string | null => ('categoryName' in item ? item.categoryName : null);

/** Lower case without accents, so "creme" finds "Crème brûlée". */
const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

export function orderingText(ordering: Ordering, timezone: string): string {
  if (ordering.reason === 'paused') return ordering.pausedUntil ? `Paused until ${formatTime(ordering.pausedUntil, timezone)}` : 'Paused';
  if (ordering.reason === 'not_accepting') return 'Closed: not accepting orders';
  if (!ordering.open) return ordering.opensAt ? `Closed until ${formatTime(ordering.opensAt, timezone)}` : 'Closed';
  return ordering.closesAt ? `Open until ${formatTime(ordering.closesAt, timezone)}` : 'Open';
}

export interface ServiceControl {
  /** Loads the panel's data again and redraws it (when its tab is opened, after each change). */
  refresh(): Promise<void>;
}

export function startService(options: ServiceOptions): ServiceControl {
  const panel = byId('panel-service');
  if (!panel) return { refresh: async () => undefined };
  let service: Service | null = null;
  let query = '';

  const search = h('input', { id: 'service-search', type: 'search', autocomplete: 'off', 'aria-controls': 'service-lists' });
  search.addEventListener('input', () => {
    query = search.value;
    drawLists();
  });
  const state = h('p', { class: 'ordering-state', id: 'ordering-state' });
  const pauseButtons = h('div', { class: 'button-row' });
  const settings = h('div', { class: 'ordering-settings' });
  const soldOut = h('div', { id: 'sold-out-now' });
  const lists = h('div', { id: 'service-lists', class: 'service-lists' });
  const canSetOrdering = options.role === 'owner' || options.role === 'manager';

  replace(
    panel,
    h('h2', { class: 'visually-hidden' }, 'Service'),
    h(
      'section',
      { class: 'panel-part', 'aria-labelledby': 'ordering-title' },
      h('h3', { id: 'ordering-title', tabindex: -1 }, 'Ordering'),
      state,
      pauseButtons,
      canSetOrdering && settings,
    ),
    h(
      'section',
      { class: 'panel-part', 'aria-labelledby': 'sold-out-title' },
      h('h3', { id: 'sold-out-title', tabindex: -1 }, 'Sold out now'),
      soldOut,
    ),
    h(
      'section',
      { class: 'panel-part', 'aria-labelledby': 'items-title' },
      h('h3', { id: 'items-title', tabindex: -1 }, 'Dishes and ingredients'),
      h('p', { class: 'field' }, h('label', { for: 'service-search' }, 'Search dishes and ingredients'), search),
      lists,
    ),
  );

  /**
   * Runs a change, then shows the panel as the server now has it. The redraw replaces the button
   * that was pressed: the focus goes to the same button again, else to its item's row or its part.
   */
  async function change(run: () => Promise<unknown>): Promise<void> {
    clearAlert();
    const from = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const rowId = from?.closest('li[id]')?.id;
    const partId = from?.closest('section')?.getAttribute('aria-labelledby');
    const label = from?.textContent;
    try {
      await run();
    } catch (error) {
      showAlert(messageOf(error));
    }
    await refresh();
    if (!from || from.isConnected) return;
    const scope = (rowId && byId(rowId)) || (partId && byId(partId)?.closest('section')) || null;
    const again = scope && [...scope.querySelectorAll<HTMLElement>('button')].find((b) => b.textContent === label);
    (again ?? scope?.querySelector<HTMLElement>('button') ?? (partId ? byId(partId) : null))?.focus();
  }

  function drawOrdering(ordering: Ordering): void {
    state.textContent = orderingText(ordering, options.timezone);
    state.classList.toggle('is-closed', !ordering.open);
    const paused = ordering.reason === 'paused' || (ordering.pausedUntil !== null && Date.parse(ordering.pausedUntil) > Date.now());
    replace(
      pauseButtons,
      ...[15, 30, 60].map((minutes) =>
        h(
          'button',
          { type: 'button', onclick: () => void change(() => api('POST', '/console/api/pause', { minutes })) },
          `Pause ${minutes} min`,
        ),
      ),
      paused &&
        h(
          'button',
          { type: 'button', class: 'primary', onclick: () => void change(() => api('POST', '/console/api/pause', { minutes: 0 })) },
          'Resume ordering',
        ),
    );
    if (canSetOrdering) drawSettings(ordering);
  }

  function drawSettings(ordering: Ordering): void {
    const accepting = h('input', { id: 'accepting-orders', type: 'checkbox', checked: ordering.acceptingOrders });
    const prep = h('input', {
      id: 'prep-time',
      type: 'number',
      min: 1,
      max: 240,
      step: 1,
      required: true,
      inputmode: 'numeric',
      value: ordering.prepTimeMinutes,
    });
    const form = h(
      'form',
      { class: 'settings-form' },
      h('p', { class: 'check' }, accepting, h('label', { for: 'accepting-orders' }, 'Accepting orders')),
      h('p', { class: 'field' }, h('label', { for: 'prep-time' }, 'Preparation time (minutes)'), prep),
      h('p', {}, h('button', { type: 'submit' }, 'Save ordering settings')),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      // Only what changed: acceptingOrders may need a plan the venue does not have (the server says so).
      const body: { acceptingOrders?: boolean; prepTimeMinutes?: number } = {};
      if (accepting.checked !== ordering.acceptingOrders) body.acceptingOrders = accepting.checked;
      const minutes = Number(prep.value);
      if (minutes !== ordering.prepTimeMinutes) body.prepTimeMinutes = minutes;
      if (Object.keys(body).length === 0) return;
      void change(async () => {
        const answer = await api<{ ordering: Ordering }>('PATCH', '/console/api/ordering', body);
        options.prepTimeChanged(answer.ordering.prepTimeMinutes);
      });
    });
    replace(settings, form);
  }

  function untilText(item: ServiceItem): string {
    return item.until ? `Sold out until ${formatTime(item.until, options.timezone)}` : 'Sold out until turned back';
  }

  async function markSoldOut(kind: Kind, item: ServiceItem): Promise<void> {
    const closesAt = service?.ordering.closesAt ?? null;
    const duration = await choose<Duration>(
      `${item.name} sold out`,
      closesAt
        ? `For how long? Ordering closes at ${formatTime(closesAt, options.timezone)}.`
        : 'For how long? Ordering is not open now, so there is no closing time.',
      [
        { value: 'hour', label: '1 hour' },
        { value: 'closing', label: 'Until closing', disabled: closesAt === null },
        { value: 'back', label: 'Until turned back' },
      ],
      'Keep on sale',
    );
    if (!duration) return;
    const until = duration === 'hour' ? new Date(Date.now() + HOUR_MS).toISOString() : duration === 'closing' ? closesAt : null;
    await change(() => api('PUT', '/console/api/availability', { [kind]: [{ ref: item.ref, available: false, until }] }));
  }

  const backOnSale = (kind: Kind, item: ServiceItem) =>
    change(() => api('PUT', '/console/api/availability', { [kind]: [{ ref: item.ref, available: true }] }));

  function row(kind: Kind, item: ServiceItem, idPrefix: string): HTMLElement {
    const nameId = `${idPrefix}-${kind}-${item.id}-name`;
    return h(
      'li',
      { class: `item${item.available ? '' : ' is-sold-out'}`, id: `${idPrefix}-${kind}-${item.id}` },
      h(
        'span',
        { class: 'item-text' },
        h('span', { class: 'item-name', id: nameId }, item.name),
        categoryOf(item) && h('span', { class: 'item-meta' }, categoryOf(item)),
        h('span', { class: 'item-state' }, item.available ? 'On sale' : untilText(item)),
      ),
      item.available
        ? h(
            'button',
            { type: 'button', 'aria-describedby': nameId, 'aria-haspopup': 'dialog', onclick: () => void markSoldOut(kind, item) },
            'Sold out',
          )
        : h(
            'button',
            { type: 'button', class: 'primary', 'aria-describedby': nameId, onclick: () => void backOnSale(kind, item) },
            'Back on sale',
          ),
    );
  }

  function drawSoldOut(): void {
    if (!service) return;
    const out = [
      ...service.products.filter((p) => !p.available).map((item) => row('products', item, 'out')),
      ...service.ingredients.filter((i) => !i.available).map((item) => row('ingredients', item, 'out')),
    ];
    replace(soldOut, out.length ? h('ul', { class: 'items-list' }, ...out) : h('p', { class: 'quiet' }, 'Nothing is sold out.'));
  }

  function drawLists(): void {
    if (!service) return;
    const words = fold(query.trim()).split(/\s+/).filter(Boolean);
    const matches = (item: ServiceItem) => {
      const text = fold(`${item.name} ${categoryOf(item) ?? ''} ${item.ref}`);
      return words.every((w) => text.includes(w));
    };
    const section = (kind: Kind, title: string) => {
      const items = service![kind].filter(matches);
      return [
        h('h4', { id: `list-${kind}` }, title, ' ', h('span', { class: 'quiet' }, `(${items.length})`)),
        items.length
          ? h('ul', { class: 'items-list', 'aria-labelledby': `list-${kind}` }, ...items.map((item) => row(kind, item, 'item')))
          : h('p', { class: 'quiet' }, query ? 'None match the search.' : 'None.'),
      ];
    };
    replace(lists, ...section('products', 'Dishes'), ...section('ingredients', 'Ingredients'));
  }

  async function refresh(): Promise<void> {
    try {
      service = await api<Service>('GET', '/console/api/service');
    } catch (error) {
      showAlert(messageOf(error));
      return;
    }
    drawOrdering(service.ordering);
    drawSoldOut();
    drawLists();
  }

  return { refresh };
}
