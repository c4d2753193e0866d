import assert from 'node:assert/strict';
import type { App } from '../../src/http/types.js';
import type { OrderStatus } from '../../src/shared/order-status.js';
import { call, type Call, type VenueFixture } from './app.js';

/**
 * A small menu that exercises every modifier type and every way a product can be hidden from
 * guests:
 * - burger: 1000, active category, required single_choice "Bun" (white 0, brioche +150),
 *   add_ingredients "Extras" (cheese +100, bacon +200), remove_ingredients "Remove" (onion, pickles)
 * - fries: 500 with an active sale price of 400 (effective 400)
 * - soda: 300 with an inactive sale price of 200 (effective 300), no category, optional
 *   single_choice "Size" (small 0, large +100)
 * - secret: menuVisible false; frozen: in an inactive category; both absent from the guest menu
 */
export const ORDER_MENU = {
  categories: [
    { externalId: 'mains', name: 'Mains', sortOrder: 1 },
    { externalId: 'closed', name: 'Closed', sortOrder: 2, isActive: false },
  ],
  ingredients: [
    { externalId: 'bun-white', name: 'White bun' },
    { externalId: 'bun-brioche', name: 'Brioche bun' },
    { externalId: 'cheese', name: 'Cheese' },
    { externalId: 'bacon', name: 'Bacon' },
    { externalId: 'onion', name: 'Onion' },
    { externalId: 'pickles', name: 'Pickles' },
    { externalId: 'small', name: 'Small' },
    { externalId: 'large', name: 'Large' },
  ],
  products: [
    {
      externalId: 'burger',
      name: 'Burger',
      priceMinor: 1000,
      categoryExternalId: 'mains',
      sortOrder: 1,
      ingredientExternalIds: ['onion', 'pickles'],
      modifierGroups: [
        {
          name: 'Bun',
          type: 'single_choice',
          options: [{ ingredientExternalId: 'bun-white' }, { ingredientExternalId: 'bun-brioche', priceAdjustment: 150 }],
        },
        {
          name: 'Extras',
          type: 'add_ingredients',
          options: [
            { ingredientExternalId: 'cheese', priceAdjustment: 100 },
            { ingredientExternalId: 'bacon', priceAdjustment: 200 },
          ],
        },
        {
          name: 'Remove',
          type: 'remove_ingredients',
          options: [{ ingredientExternalId: 'onion' }, { ingredientExternalId: 'pickles' }],
        },
      ],
    },
    {
      externalId: 'fries',
      name: 'Fries',
      priceMinor: 500,
      salePriceMinor: 400,
      isSaleActive: true,
      categoryExternalId: 'mains',
      sortOrder: 2,
    },
    {
      externalId: 'soda',
      name: 'Soda',
      priceMinor: 300,
      salePriceMinor: 200,
      isSaleActive: false,
      sortOrder: 3,
      modifierGroups: [
        {
          name: 'Size',
          type: 'single_choice',
          isRequired: false,
          options: [{ ingredientExternalId: 'small' }, { ingredientExternalId: 'large', priceAdjustment: 100 }],
        },
      ],
    },
    { externalId: 'secret', name: 'Secret', priceMinor: 900, categoryExternalId: 'mains', menuVisible: false },
    { externalId: 'frozen', name: 'Frozen', priceMinor: 700, categoryExternalId: 'closed' },
  ],
};

/** Option ids of one product: group name -> ingredient externalId -> option id. */
export type OptionIds = Record<string, Record<string, string>>;

export interface MenuIds {
  /** Every product of the published snapshot (hidden ones too), by externalId. */
  productIds: Record<string, string>;
  /** Options of the products guests can see, by product externalId. */
  options: Record<string, OptionIds>;
  publicationId: string;
  /** The guest menu body the ids were read from. */
  guestMenu: any;
}

export interface OrderConfigPatch {
  acceptingOrders?: boolean;
  deliveryEnabled?: boolean;
  pickupEnabled?: boolean;
  dineInEnabled?: boolean;
  deliveryFeeMinor?: number;
  freeDeliveryFromMinor?: number | null;
  minOrderMinor?: number;
  pausedUntil?: string | null;
  prepTimeMinutes?: number;
  scheduledOrders?: { enabled?: boolean; maxDaysAhead?: number };
}

/** The orderConfig setUpOrderMenu applies unless told otherwise: every order type, a fee, a threshold. */
export const DEFAULT_TEST_ORDER_CONFIG: OrderConfigPatch = {
  acceptingOrders: true,
  deliveryEnabled: true,
  pickupEnabled: true,
  dineInEnabled: true,
  deliveryFeeMinor: 250,
  freeDeliveryFromMinor: 5000,
  minOrderMinor: 0,
  scheduledOrders: { enabled: true, maxDaysAhead: 14 },
};

export function expectStatus(res: Call, status: number): void {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
}

export async function patchOrderConfig(app: App, v: VenueFixture, orderConfig: OrderConfigPatch): Promise<void> {
  expectStatus(await call(app, 'PATCH', '/v1/settings', { key: v.key, body: { orderConfig } }), 200);
}

export async function publish(app: App, v: VenueFixture): Promise<string> {
  const res = await call(app, 'POST', '/v1/publish', { key: v.key });
  expectStatus(res, 201);
  return res.body.publicationId;
}

/**
 * Syncs ORDER_MENU (or `menu`), sets orderConfig (paid plans only), publishes, and reads the ids
 * guests order with from GET /guest/v1/venues/:slug/menu (hidden products from the published
 * snapshot of GET /v1/menu). `slug` defaults to the live venue's.
 */
export async function setUpOrderMenu(
  app: App,
  v: VenueFixture,
  options: { orderConfig?: OrderConfigPatch | null; menu?: unknown; slug?: string } = {},
): Promise<MenuIds> {
  const sync = await call(app, 'POST', '/v1/sync', { key: v.key, body: options.menu ?? ORDER_MENU });
  expectStatus(sync, 201);
  for (const section of ['categories', 'ingredients', 'products'] as const) {
    assert.deepEqual(sync.body[section]?.errors ?? [], [], `sync ${section} errors`);
  }
  if (options.orderConfig !== null) await patchOrderConfig(app, v, options.orderConfig ?? DEFAULT_TEST_ORDER_CONFIG);
  await publish(app, v);
  return readMenuIds(app, v, options.slug ?? v.slug);
}

export async function readMenuIds(app: App, v: VenueFixture, slug: string): Promise<MenuIds> {
  const published = await call(app, 'GET', '/v1/menu?version=published', { key: v.key });
  expectStatus(published, 200);
  const productIds: Record<string, string> = {};
  for (const p of published.body.products) productIds[p.externalId] = p.id;

  const guest = await call(app, 'GET', `/guest/v1/venues/${slug}/menu`);
  expectStatus(guest, 200);
  const externalById = new Map<string, string>(published.body.products.map((p: any) => [p.id, p.externalId]));
  const optionIngredient = new Map<string, string>();
  for (const p of published.body.products) {
    for (const g of p.modifierGroups) for (const o of g.options) optionIngredient.set(o.id, o.ingredientExternalId);
  }
  const options: Record<string, OptionIds> = {};
  for (const p of guest.body.products) {
    const byGroup: OptionIds = {};
    for (const g of p.modifierGroups) {
      byGroup[g.name] = {};
      for (const o of g.options) byGroup[g.name][optionIngredient.get(o.id) ?? o.id] = o.id;
    }
    options[externalById.get(p.id) ?? p.id] = byGroup;
  }
  return { productIds, options, publicationId: published.body.publicationId, guestMenu: guest.body };
}

export interface OrderLine {
  productId: string;
  quantity: number;
  modifiers?: { optionId: string; quantity?: number }[];
}

/** A pickup order for one portion of fries (400): the smallest valid order of ORDER_MENU. */
export function orderBody(ids: MenuIds, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'pickup',
    paymentMethod: 'cash',
    items: [{ productId: ids.productIds.fries, quantity: 1 }],
    customerName: 'Ada',
    customerPhone: '+380501234567',
    ...overrides,
  };
}

/** A burger line with the required bun choice (white unless told) and optional extras. */
export function burgerLine(
  ids: MenuIds,
  quantity = 1,
  extra: { optionId: string; quantity?: number }[] = [],
  bun = 'bun-white',
): OrderLine {
  return {
    productId: ids.productIds.burger,
    quantity,
    modifiers: [{ optionId: ids.options.burger.Bun[bun] }, ...extra],
  };
}

export function placeOrder(app: App, slug: string, body: unknown, idempotencyKey?: string): Promise<Call> {
  return call(app, 'POST', `/guest/v1/venues/${slug}/orders`, {
    body,
    headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
  });
}

/** Places an order that must succeed (201) and returns the Order. */
export async function createOrder(app: App, slug: string, body: unknown): Promise<any> {
  const res = await placeOrder(app, slug, body);
  expectStatus(res, 201);
  return res.body;
}

export function patchStatus(app: App, key: string, orderId: string, status: unknown): Promise<Call> {
  return call(app, 'PATCH', `/v1/orders/${orderId}/status`, { key, body: { status } });
}

/** A legal path from new to every status. */
export const PATH_TO: Record<OrderStatus, OrderStatus[]> = {
  new: [],
  confirmed: ['confirmed'],
  preparing: ['confirmed', 'preparing'],
  delivering: ['confirmed', 'preparing', 'delivering'],
  completed: ['confirmed', 'preparing', 'completed'],
  cancelled: ['cancelled'],
};

/** Moves an order from new to `status` through legal steps; returns the last Order. */
export async function driveTo(app: App, key: string, order: any, status: OrderStatus): Promise<any> {
  let current = order;
  for (const step of PATH_TO[status]) {
    const res = await patchStatus(app, key, order.id, step);
    expectStatus(res, 200);
    current = res.body;
  }
  assert.equal(current.status, status);
  return current;
}

/** Every audit entry of one action for the venue (all pages), newest first. */
export async function auditEntries(app: App, key: string, action: string): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page += 1) {
    const res = await call(app, 'GET', `/v1/audit-log?action=${action}&limit=100&page=${page}`, { key });
    expectStatus(res, 200);
    out.push(...res.body.items);
    if (page >= res.body.totalPages) return out;
  }
}

export { sleep } from './net.js';
