// One order on the board: an <article> named by its order number, with what the
// kitchen needs and the buttons of the moves the status machine allows from where it is.
import { h } from '../shared/dom.js';
import type { Order, OrderStatus } from './types.js';
import { formatTime, money } from './ui.js';

export interface VenueClock {
  timezone: string;
  prepTimeMinutes: number;
}

export interface CardActions {
  move(order: Order, to: OrderStatus): void;
  print(order: Order): void;
}

const TYPE_LABELS: Record<Order['type'], string> = { dine_in: 'Dine-in', pickup: 'Pickup', delivery: 'Delivery' };
const PAYMENT_LABELS: Record<Order['paymentMethod'], string> = { cash: 'Cash', terminal: 'Card on the terminal', online: 'Paid online' };
const STATUS_LABELS: Record<OrderStatus, string> = {
  new: 'New',
  confirmed: 'Confirmed',
  preparing: 'Preparing',
  delivering: 'Out for delivery',
  completed: 'Completed',
  cancelled: 'Cancelled',
};

/** The buttons, by the status each moves to, in the order of a kitchen's day (docs/console.md names them). */
export const MOVES: readonly { to: OrderStatus; label: string }[] = [
  { to: 'confirmed', label: 'Confirm' },
  { to: 'preparing', label: 'Start preparing' },
  { to: 'delivering', label: 'Out for delivery' },
  { to: 'completed', label: 'Complete' },
  { to: 'cancelled', label: 'Cancel' },
];

/** The moves offered: those allowed now, "Out for delivery" for delivery orders only. */
export function movesOf(order: Order): typeof MOVES {
  return MOVES.filter((m) => order.allowedTransitions.includes(m.to) && (m.to !== 'delivering' || order.type === 'delivery'));
}

export const cardId = (order: Pick<Order, 'id'>) => `order-${order.id}`;
export const orderTitle = (order: Pick<Order, 'orderNumber'>) => `Order ${order.orderNumber}`;

/** The statuses whose age counts against the preparation time: the kitchen still has the order. */
const IN_KITCHEN = new Set<OrderStatus>(['new', 'confirmed', 'preparing']);

/**
 * "12 min ago", and whether the order is late: past the venue's preparation time since it was
 * placed, or past its time when it was scheduled.
 */
export function ageOf(order: Order, clock: VenueClock, now = Date.now()): { text: string; late: boolean } {
  const minutes = Math.max(0, Math.floor((now - Date.parse(order.createdAt)) / 60_000));
  const text = minutes < 60 ? `${minutes} min ago` : `${Math.floor(minutes / 60)} h ${minutes % 60} min ago`;
  const due = order.scheduledFor ? Date.parse(order.scheduledFor) : Date.parse(order.createdAt) + clock.prepTimeMinutes * 60_000;
  return { text, late: IN_KITCHEN.has(order.status) && now > due };
}

/** Sets a card's age line and its late mark (a class and words: not colour alone). */
export function showAge(card: HTMLElement, order: Order, clock: VenueClock, now = Date.now()): void {
  const { text, late } = ageOf(order, clock, now);
  card.classList.toggle('late', late);
  const age = card.querySelector('.age');
  if (age) age.replaceChildren(late ? h('strong', { class: 'late-mark' }, 'Late') : '', late ? ' · ' : '', `Placed ${text}`);
}

function itemLines(order: Order): HTMLElement {
  return h(
    'ul',
    { class: 'items' },
    ...order.items.map((item) => {
      const groups = new Map<string, string[]>();
      for (const m of item.modifiers) {
        const names = groups.get(m.groupName) ?? [];
        names.push(m.quantity > 1 ? `${m.ingredientName} ×${m.quantity}` : m.ingredientName);
        groups.set(m.groupName, names);
      }
      return h(
        'li',
        {},
        h('span', { class: 'qty' }, `${item.quantity}×`),
        ' ',
        h('span', { class: 'item-name' }, item.productName),
        groups.size > 0 && h('ul', { class: 'mods' }, ...[...groups].map(([group, names]) => h('li', {}, `${group}: ${names.join(', ')}`))),
      );
    }),
  );
}

/** Where the order goes and whom to call: the table, or the guest (and the address for a delivery). */
function whereAndWho(order: Order): HTMLElement[] {
  const { customerName: name, customerPhone: phone } = order;
  const lines: HTMLElement[] = [];
  if (order.type === 'dine_in') lines.push(h('p', { class: 'where' }, order.tableName ? `Table ${order.tableName}` : 'Table not named'));
  if (name || phone) {
    lines.push(
      h('p', { class: 'who' }, name, name && phone ? ' · ' : '', phone && h('a', { href: `tel:${phone.replace(/[^\d+]/g, '')}` }, phone)),
    );
  }
  if (order.type === 'delivery' && order.deliveryAddress) lines.push(h('p', { class: 'address' }, order.deliveryAddress));
  if (order.type === 'delivery' && order.deliveryNotes) lines.push(h('p', { class: 'address-notes' }, order.deliveryNotes));
  return lines;
}

export function orderCard(order: Order, clock: VenueClock, actions: CardActions): HTMLElement {
  const id = cardId(order);
  const titleId = `${id}-title`;
  const done = order.status === 'completed' || order.status === 'cancelled';
  const payment =
    PAYMENT_LABELS[order.paymentMethod] +
    (order.paymentMethod === 'cash' && order.changeFromAmount ? `, change from ${money(order.changeFromAmount, order.currency)}` : '');
  const card = h(
    'article',
    { class: `card status-${order.status}`, id, 'aria-labelledby': titleId },
    h(
      'header',
      { class: 'card-head' },
      h('h3', { id: titleId, tabindex: -1 }, orderTitle(order)),
      h('span', { class: `type type-${order.type}` }, TYPE_LABELS[order.type]),
      done && h('span', { class: 'final' }, STATUS_LABELS[order.status]),
    ),
    ...whereAndWho(order),
    order.scheduledFor && h('p', { class: 'scheduled' }, h('strong', {}, 'Scheduled for '), formatTime(order.scheduledFor, clock.timezone)),
    itemLines(order),
    order.comment && h('p', { class: 'comment' }, h('strong', {}, 'Note: '), order.comment),
    h(
      'p',
      { class: 'total' },
      h('span', {}, 'Total ', h('strong', {}, money(order.totalAmount, order.currency))),
      h('span', { class: 'payment' }, payment),
    ),
    h('p', { class: 'age' }),
    h(
      'div',
      { class: 'actions' },
      ...movesOf(order).map((m) =>
        h(
          'button',
          {
            type: 'button',
            class: m.to === 'cancelled' ? 'danger' : 'primary',
            'aria-describedby': titleId,
            'data-move': m.to,
            onclick: () => actions.move(order, m.to),
          },
          m.label,
        ),
      ),
      h('button', { type: 'button', class: 'print', 'aria-describedby': titleId, onclick: () => actions.print(order) }, 'Print ticket'),
    ),
  );
  if (!done) showAge(card, order, clock);
  else card.querySelector('.age')?.remove();
  return card;
}

/** The kitchen ticket for an 80 mm receipt printer: what to make and for whom, large and plain. */
export function ticket(order: Order, clock: VenueClock): HTMLElement[] {
  return [
    h('p', { class: 'ticket-number' }, orderTitle(order)),
    h('p', {}, `${TYPE_LABELS[order.type]} · ${formatTime(order.createdAt, clock.timezone)}`),
    ...whereAndWho(order),
    order.scheduledFor
      ? h('p', { class: 'ticket-scheduled' }, `Scheduled for ${formatTime(order.scheduledFor, clock.timezone)}`)
      : h('span'),
    itemLines(order),
    order.comment ? h('p', { class: 'ticket-comment' }, `Note: ${order.comment}`) : h('span'),
    h('p', {}, `Total ${money(order.totalAmount, order.currency)} · ${PAYMENT_LABELS[order.paymentMethod]}`),
  ];
}
