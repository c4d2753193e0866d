// Named operations: the audit log's action values (among them product.update
// and the webhook endpoints' actions of docs/events.md), shared by the audit
// writer, its list filter and the OpenAPI document.

export const AUDIT_ACTIONS = [
  'menu.sync',
  'menu.publish',
  'menu.cleanup',
  'menu.restore',
  'product.update',
  'product.delete',
  'product.image',
  'product.translations',
  'settings.update',
  'availability.update',
  'logo.image',
  'banner.create',
  'banner.update',
  'banner.delete',
  'banner.image',
  'banner.translations',
  'promotion.create',
  'promotion.update',
  'promotion.delete',
  'promotion.item_add',
  'promotion.item_update',
  'promotion.item_remove',
  'table.create',
  'table.update',
  'table.delete',
  'category.translations',
  'ingredient.translations',
  'modifier_group.translations',
  'order.status_update',
  'webhook.create',
  'webhook.update',
  'webhook.delete',
  'webhook.test',
  'webhook.retry',
  // The operator's (or, later, an owner's) changes to a venue's staff.
  'staff.invite',
  'staff.update',
  'staff.reinvite',
  'staff.remove',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];
