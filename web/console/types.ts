// The shapes the board reads: orders and members from the server's schemas (style rule 2); the
// board API's own envelopes as docs/console.md "The board's API" sets them.
import type { OrderView } from '../../src/modules/orders/orders.schemas.js';
import type { StaffMemberView } from '../../src/modules/staff/staff.schemas.js';

export type Order = OrderView;
export type OrderStatus = Order['status'];
export type StaffMember = StaffMemberView;
export type Role = StaffMember['role'];

export interface Ordering {
  open: boolean;
  reason: 'not_accepting' | 'paused' | 'closed' | null;
  pausedUntil: string | null;
  opensAt: string | null;
  closesAt: string | null;
  acceptingOrders: boolean;
  prepTimeMinutes: number;
}

export interface Board {
  member: { id: string; name: string; role: Role };
  venue: { id: string; name: string; currency: string; timezone: string; prepTimeMinutes: number };
  cursor: string | null;
  orders: Order[];
  ordering: Ordering;
}

export interface ServiceItem {
  id: string;
  ref: string;
  name: string;
  categoryName?: string | null;
  available: boolean;
  until: string | null;
}

export interface Service {
  ordering: Ordering;
  products: ServiceItem[];
  ingredients: ServiceItem[];
}

export type Invited = Pick<StaffMember, 'id' | 'email' | 'name' | 'role'> & { inviteUrl: string; inviteExpiresAt: string };
