// The order state machine: the one table that status updates enforce and that
// GET /v1/reference shows as orderStatusTransitions.

export const ORDER_STATUSES = ['new', 'confirmed', 'preparing', 'delivering', 'completed', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const ORDER_STATUS_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  new: ['confirmed', 'cancelled'],
  confirmed: ['preparing', 'cancelled'],
  preparing: ['delivering', 'completed', 'cancelled'],
  delivering: ['completed', 'cancelled'],
  completed: [],
  cancelled: [],
};

export function allowedTransitions(from: OrderStatus): readonly OrderStatus[] {
  return ORDER_STATUS_TRANSITIONS[from];
}

export function isTerminal(status: OrderStatus): boolean {
  return ORDER_STATUS_TRANSITIONS[status].length === 0;
}

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return ORDER_STATUS_TRANSITIONS[from].includes(to);
}

/** The 422 message of a status change the table does not allow. */
export function transitionErrorMessage(from: OrderStatus, to: OrderStatus): string {
  const next = ORDER_STATUS_TRANSITIONS[from];
  if (next.length === 0) {
    return `Cannot change order status from '${from}' to '${to}'. '${from}' is a terminal status; no transitions are allowed`;
  }
  return `Cannot change order status from '${from}' to '${to}'. Allowed from '${from}': ${next.join(', ')}`;
}
