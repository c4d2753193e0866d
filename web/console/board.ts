// The order board: the orders of GET /console/api/board in their columns, kept live by
// the order stream (EventSource resumes with Last-Event-ID by itself), moved with the status
// buttons. Per order id the board keeps the version with the latest updatedAt, whichever way it came.
import { byId, h, replace } from '../shared/dom.js';
import { api, leftPage, messageOf } from './api.js';
import { orderCard, showAge, ticket, type VenueClock } from './card.js';
import { beep } from './sound.js';
import type { Board, Order, OrderStatus } from './types.js';
import { choose, clearAlert, showAlert, shown } from './ui.js';

const COLUMNS = ['new', 'confirmed', 'preparing', 'delivering'] as const;
type Column = (typeof COLUMNS)[number] | 'done';
const columnOf = (status: OrderStatus): Column => ((COLUMNS as readonly string[]).includes(status) ? (status as Column) : 'done');

/**
 * The printed page's size, one ticket long on an 80 mm roll: a stylesheet the script writes (a
 * constructed one, which the CSP's style-src 'self' does not forbid, unlike a <style> element).
 */
const printPage: CSSStyleSheet | null = (() => {
  try {
    const sheet = new CSSStyleSheet();
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    return sheet;
  } catch {
    return null;
  }
})();

/** After the stream has closed for good (a 401 or a refusal on reconnecting), the board reloads after this. */
const RELOAD_DELAY_MS = 3_000;
/** How often the ages on the cards move on. */
const AGE_TICK_MS = 30_000;

export interface BoardEvents {
  /** The board's data arrived (the first load and every reload). */
  loaded(board: Board): void;
}

export interface BoardControl {
  /** A new preparation time (the Ordering settings) moves the late marks at once. */
  setPrepTime(minutes: number): void;
}

export function startBoard(events: BoardEvents): BoardControl {
  const orders = new Map<string, Order>();
  const cards = new Map<string, HTMLElement>();
  /** Orders seen since the page opened: a new order beeps once, not again after a reload. */
  const seen = new Set<string>();
  let clock: VenueClock = { timezone: 'UTC', prepTimeMinutes: 15 };
  let venueName = '';
  let stream: EventSource | null = null;
  let reloadTimer: ReturnType<typeof setTimeout> | undefined;
  /** The venue's date when the board loaded: "Completed and cancelled today" starts again on the next. */
  let loadedDay = '';
  const dayOf = (t: number) => new Intl.DateTimeFormat('en-CA', { timeZone: clock.timezone }).format(t);

  const list = (column: Column) => byId(`cards-${column}`);

  const sortKey = (column: Column, order: Order) =>
    // Oldest first in the working columns; the day's finished ones with the latest first.
    column === 'done' ? -Date.parse(order.updatedAt) : Date.parse(order.createdAt);

  function place(card: HTMLElement, order: Order): void {
    const column = columnOf(order.status);
    const container = list(column);
    if (!container) return;
    const key = sortKey(column, order);
    const before = [...container.children].find((other) => {
      const o = orders.get(other.id.slice('order-'.length));
      return o !== undefined && o.id !== order.id && sortKey(column, o) > key;
    });
    container.insertBefore(card, before ?? null);
  }

  function updateCounts(): void {
    const counts: Record<Column, number> = { new: 0, confirmed: 0, preparing: 0, delivering: 0, done: 0 };
    for (const order of orders.values()) counts[columnOf(order.status)]++;
    for (const column of [...COLUMNS, 'done'] as const) {
      for (const el of document.querySelectorAll(`[data-count="${column}"]`)) el.textContent = String(counts[column]);
      const empty = byId(`empty-${column}`);
      if (empty) empty.hidden = counts[column] > 0;
    }
    document.title = `${counts.new > 0 ? `(${counts.new}) ` : ''}Board · ${venueName}`;
  }

  /** Where the focus goes when the card that held it left the screen: its old neighbour, else the column. */
  function focusAfter(card: HTMLElement, neighbour: Element | null, oldColumn: Column, label: string | null): void {
    const same = label ? [...card.querySelectorAll<HTMLButtonElement>('.actions button')].find((b) => b.textContent === label) : undefined;
    const target = shown(card)
      ? (same ?? card.querySelector<HTMLElement>('.actions button[data-move]') ?? card.querySelector<HTMLElement>('h3'))
      : neighbour instanceof HTMLElement && shown(neighbour)
        ? (neighbour.querySelector<HTMLElement>('.actions button') ?? neighbour)
        : byId(`title-${oldColumn}`);
    target?.focus();
  }

  /**
   * Puts an order on the board unless the board has a later version of it. A card that held the
   * focus (or whose button was just pressed: `hadFocus`) hands it to its new self, or nearby.
   */
  function upsert(order: Order, hadFocus = false): void {
    const had = orders.get(order.id);
    if (had && Date.parse(had.updatedAt) > Date.parse(order.updatedAt)) return;
    orders.set(order.id, order);
    const old = cards.get(order.id);
    const focused = old?.contains(document.activeElement) ? (document.activeElement as HTMLElement) : hadFocus ? old : null;
    const neighbour = old ? (old.nextElementSibling ?? old.previousElementSibling) : null;
    const card = orderCard(order, clock, { move, print });
    if (
      old &&
      had &&
      columnOf(had.status) === columnOf(order.status) &&
      sortKey(columnOf(order.status), had) === sortKey(columnOf(order.status), order)
    ) {
      old.replaceWith(card);
    } else {
      old?.remove();
      place(card, order);
    }
    cards.set(order.id, card);
    if (focused && had)
      focusAfter(card, neighbour, columnOf(had.status), focused.tagName === 'BUTTON' && !hadFocus ? focused.textContent : null);
  }

  function remove(id: string): void {
    cards.get(id)?.remove();
    cards.delete(id);
    orders.delete(id);
  }

  async function move(order: Order, to: OrderStatus): Promise<void> {
    const card = cards.get(order.id);
    if (to === 'cancelled') {
      const sure = await choose(
        `Cancel order ${order.orderNumber}?`,
        'The guest sees that the order is cancelled. This cannot be undone.',
        [{ value: 'cancel', label: 'Cancel order', danger: true }],
        'Keep order',
      );
      if (!sure) return;
    }
    clearAlert();
    // Disabled while the call runs, the pressed button loses the focus: remember where it was.
    const hadFocus = card?.contains(document.activeElement) === true;
    const buttons = card ? [...card.querySelectorAll<HTMLButtonElement>('.actions button')] : [];
    for (const b of buttons) b.disabled = true;
    try {
      const updated = await api<Order>('POST', `/console/api/orders/${encodeURIComponent(order.id)}/status`, { status: to });
      upsert(updated, hadFocus);
      updateCounts();
    } catch (error) {
      // A refused move (the order moved elsewhere meanwhile) leaves the card; the stream brings its state.
      showAlert(`Order ${order.orderNumber}: ${messageOf(error)}`);
      for (const b of buttons) b.disabled = false;
      if (hadFocus) card?.querySelector<HTMLElement>('.actions button')?.focus();
    }
  }

  function print(order: Order): void {
    let sheet = byId('ticket');
    if (!sheet) {
      sheet = h('div', { id: 'ticket', class: 'ticket' });
      document.body.append(sheet);
    }
    replace(sheet, ...ticket(order, clock));
    sheet.classList.add('measuring');
    const lengthMm = Math.ceil((sheet.getBoundingClientRect().height * 25.4) / 96) + 2;
    sheet.classList.remove('measuring');
    printPage?.replaceSync(`@page { size: 80mm ${lengthMm}mm; margin: 0; }`);
    document.body.classList.add('printing');
    window.addEventListener(
      'afterprint',
      () => {
        document.body.classList.remove('printing');
        // Printing the board itself (the browser's own Print) takes the printer's paper again.
        printPage?.replaceSync('');
      },
      { once: true },
    );
    window.print();
  }

  /** The connection's state: said while it is down, and kept on <body data-stream> (open or offline). */
  function setOnline(online: boolean): void {
    const status = byId('connection');
    if (status) status.textContent = online ? '' : 'Offline — reconnecting';
    document.body.dataset.stream = online ? 'open' : 'offline';
  }

  function onEvent(event: Event): void {
    let order: Order;
    try {
      order = JSON.parse((event as MessageEvent<string>).data) as Order;
    } catch {
      return;
    }
    const fresh = !seen.has(order.id);
    seen.add(order.id);
    upsert(order);
    updateCounts();
    if (fresh && order.status === 'new') beep();
  }

  function openStream(cursor: string | null): void {
    stream?.close();
    const url = `/console/api/orders/stream${cursor === null ? '' : `?after=${encodeURIComponent(cursor)}`}`;
    const source = new EventSource(url);
    stream = source;
    source.addEventListener('open', () => setOnline(true));
    source.addEventListener('order.created', onEvent);
    source.addEventListener('order.updated', onEvent);
    source.addEventListener('error', () => {
      setOnline(false);
      // CONNECTING: EventSource retries by itself, with Last-Event-ID. CLOSED: it gave up (the
      // session ended, or the server refused the stream): start again from the board.
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        scheduleReload();
      }
    });
  }

  function scheduleReload(): void {
    clearTimeout(reloadTimer);
    reloadTimer = setTimeout(() => void load(), RELOAD_DELAY_MS);
  }

  async function load(): Promise<void> {
    let board: Board;
    try {
      board = await api<Board>('GET', '/console/api/board');
    } catch (error) {
      // A 401 or an inactive subscription has already sent the page away.
      if (!leftPage(error)) {
        setOnline(false);
        scheduleReload();
      }
      return;
    }
    clock = { timezone: board.venue.timezone, prepTimeMinutes: board.venue.prepTimeMinutes };
    venueName = board.venue.name;
    loadedDay = dayOf(Date.now());
    const first = seen.size === 0 && orders.size === 0;
    const arrived = board.orders.filter((o) => !seen.has(o.id) && o.status === 'new');
    for (const id of [...orders.keys()]) if (!board.orders.some((o) => o.id === id)) remove(id);
    for (const order of board.orders) {
      seen.add(order.id);
      upsert(order);
    }
    updateCounts();
    if (!first && arrived.length > 0) beep();
    events.loaded(board);
    openStream(board.cursor);
  }

  function tick(): void {
    const now = Date.now();
    // Past the venue's midnight: the board loads again, and yesterday's finished orders leave it.
    if (loadedDay !== '' && dayOf(now) !== loadedDay) {
      loadedDay = '';
      void load();
      return;
    }
    for (const [id, card] of cards) {
      const order = orders.get(id);
      if (order && columnOf(order.status) !== 'done') showAge(card, order, clock, now);
    }
  }

  startColumnPicker();
  setInterval(tick, AGE_TICK_MS);
  void load();
  return {
    setPrepTime(minutes) {
      clock = { ...clock, prepTimeMinutes: minutes };
      tick();
    },
  };
}

/**
 * On a phone one column shows at a time, picked by a row of toggle buttons with counts; on every
 * screen "Completed and cancelled today" swaps the working columns for the day's finished orders.
 */
function startColumnPicker(): void {
  const board = byId('board');
  const doneToggle = byId<HTMLButtonElement>('show-done');
  const pickers = [...document.querySelectorAll<HTMLButtonElement>('[data-pick]')];
  if (!board || !doneToggle) return;
  const show = (column: Column) => {
    const done = column === 'done';
    board.classList.toggle('showing-done', done);
    doneToggle.setAttribute('aria-pressed', String(done));
    const doneSection = byId('column-done');
    if (doneSection) doneSection.hidden = !done;
    if (!done) {
      for (const p of pickers) p.setAttribute('aria-pressed', String(p.dataset.pick === column));
      for (const c of COLUMNS) byId(`column-${c}`)?.classList.toggle('picked', c === column);
    }
  };
  let last: Column = 'new';
  for (const p of pickers) p.addEventListener('click', () => show((last = p.dataset.pick as Column)));
  doneToggle.addEventListener('click', () => show(doneToggle.getAttribute('aria-pressed') === 'true' ? last : 'done'));
  show(last);
}
