import { randomBytes } from 'node:crypto';
import { newOrderLines, type NewOrder, type OrderItemRow, type OrderMarks, type OrderModifierRow, type OrderRow } from './orders.repository.js';
import { allowedTransitions } from './order-status.js';
import type { OrderView } from './orders.schemas.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Rows -> the Order of spec 2.7, lines grouped under their orders. */
export function orderViews(orders: OrderRow[], items: OrderItemRow[], modifiers: OrderModifierRow[]): OrderView[] {
  const modifiersByItem = new Map<string, OrderModifierRow[]>();
  for (const m of modifiers) {
    const key = `${m.order_id}:${m.item_position}`;
    const list = modifiersByItem.get(key) ?? [];
    list.push(m);
    modifiersByItem.set(key, list);
  }
  const itemsByOrder = new Map<string, OrderView['items']>();
  for (const it of items) {
    const list = itemsByOrder.get(it.order_id) ?? [];
    list.push({
      productExternalId: it.product_external_id,
      productName: it.product_name,
      quantity: it.quantity,
      unitPrice: it.unit_price,
      totalPrice: it.total_price,
      modifiers: (modifiersByItem.get(`${it.order_id}:${it.position}`) ?? []).map((m) => ({
        groupName: m.group_name,
        ingredientExternalId: m.ingredient_external_id,
        ingredientName: m.ingredient_name,
        priceAdjustment: m.price_adjustment,
        quantity: m.quantity,
      })),
    });
    itemsByOrder.set(it.order_id, list);
  }
  return orders.map((o) => ({
    id: o.id,
    orderNumber: o.order_number,
    status: o.status,
    allowedTransitions: [...allowedTransitions(o.status)],
    type: o.type,
    customerName: o.customer_name,
    customerPhone: o.customer_phone,
    customerEmail: o.customer_email,
    deliveryAddress: o.delivery_address,
    deliveryNotes: o.delivery_notes,
    paymentMethod: o.payment_method,
    comment: o.comment,
    changeFromAmount: o.change_from_amount,
    scheduledFor: iso(o.scheduled_for),
    tableId: o.table_id,
    tableName: o.table_name,
    currency: o.currency,
    subtotalAmount: o.subtotal_amount,
    deliveryFee: o.delivery_fee,
    discountAmount: o.discount_amount,
    totalAmount: o.total_amount,
    createdAt: o.created_at.toISOString(),
    updatedAt: o.updated_at.toISOString(),
    confirmedAt: iso(o.confirmed_at),
    completedAt: iso(o.completed_at),
    items: itemsByOrder.get(o.id) ?? [],
  }));
}

/** Fresh marks for one order's event (OrderMarks): unguessable, and left as they are by JSON.stringify. */
export function orderMarks(): OrderMarks {
  const mark = (what: string) => `carta-${what}-${randomBytes(16).toString('hex')}`;
  return { number: mark('number'), time: mark('time'), scheduledFor: mark('scheduled-for') };
}

/**
 * The view of an order about to be placed, for the event its statement writes: what the statement
 * alone knows is marked (its number, created and updated times, and scheduled time), and the
 * statement replaces each mark with the value the read shows.
 */
export function placedOrderView(o: NewOrder, marks: OrderMarks): OrderView {
  const { items, modifiers } = newOrderLines(o);
  const row: OrderRow = {
    id: o.id,
    order_number: marks.number,
    status: 'new',
    type: o.type as OrderRow['type'],
    customer_name: o.customerName,
    customer_phone: o.customerPhone,
    customer_email: o.customerEmail,
    delivery_address: o.deliveryAddress,
    delivery_notes: o.deliveryNotes,
    payment_method: o.paymentMethod as OrderRow['payment_method'],
    comment: o.comment,
    change_from_amount: o.changeFromAmount,
    scheduled_for: null,
    table_id: o.tableId,
    table_name: o.tableName,
    currency: o.currency,
    subtotal_amount: o.subtotalAmount,
    delivery_fee: o.deliveryFee,
    discount_amount: o.discountAmount,
    total_amount: o.totalAmount,
    created_at: new Date(0),
    updated_at: new Date(0),
    confirmed_at: null,
    completed_at: null,
  };
  const [view] = orderViews([row], items, modifiers);
  return { ...view, scheduledFor: o.scheduledFor === null ? null : marks.scheduledFor, createdAt: marks.time, updatedAt: marks.time };
}
