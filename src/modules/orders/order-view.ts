import type { OrderItemRow, OrderModifierRow, OrderRow } from './orders.repository.js';
import { allowedTransitions } from '../../shared/order-status.js';
import type { OrderView } from './orders.schemas.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Item and modifier rows -> each order's lines as the Order shows them, by order id. */
export function lineViews(items: OrderItemRow[], modifiers: OrderModifierRow[]): Map<string, OrderView['items']> {
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
  return itemsByOrder;
}

/** Rows -> the Order, lines grouped under their orders. */
export function orderViews(orders: OrderRow[], items: OrderItemRow[], modifiers: OrderModifierRow[]): OrderView[] {
  const itemsByOrder = lineViews(items, modifiers);
  return orders.map((o) => orderView(o, itemsByOrder.get(o.id) ?? []));
}

/** One order row and its lines (lineViews) -> the Order. */
export function orderView(o: OrderRow, items: OrderView['items']): OrderView {
  return {
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
    items,
  };
}
