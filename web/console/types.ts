// The shapes the board reads, as the server's schemas define them (one schema, one type: style
// rule 2): type-only imports, so nothing of the server enters the bundle.
import type { BoardOrderingView, BoardView, ServiceView } from '../../src/modules/console/console.schemas.js';
import type { OrderView } from '../../src/modules/orders/orders.schemas.js';
import type { StaffInvitedView, StaffListView, StaffMemberView } from '../../src/modules/staff/staff.schemas.js';

export type Order = OrderView;
export type OrderStatus = Order['status'];
export type Board = BoardView;
export type Ordering = BoardOrderingView;
export type Service = ServiceView;
export type ServiceItem = Service['products'][number] | Service['ingredients'][number];
export type StaffMember = StaffMemberView;
export type StaffList = StaffListView;
export type Invited = StaffInvitedView;
export type Role = StaffMember['role'];
