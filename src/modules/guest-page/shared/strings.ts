// The page's own words (menu content comes translated from the venue): English here, each other
// language of the reference in words/<language>.ts, complete (typed UiStrings). A language the
// page has no words for shows the menu in its language and these words in English.
import { ar } from './words/ar.js';
import { cs } from './words/cs.js';
import { de } from './words/de.js';
import { es } from './words/es.js';
import { fr } from './words/fr.js';
import { it } from './words/it.js';
import { ja } from './words/ja.js';
import { pl } from './words/pl.js';
import { pt } from './words/pt.js';
import { ru } from './words/ru.js';
import { uk } from './words/uk.js';
import { uz } from './words/uz.js';
import { zh } from './words/zh.js';

const en = {
  table: 'Table {name}',
  categories: 'Categories',
  language: 'Language',
  add: 'Add',
  addNamed: 'Add {name}',
  addToOrder: 'Add to order · {price}',
  close: 'Close',
  quantity: 'Quantity',
  decrease: 'One less',
  increase: 'One more',
  decreaseNamed: 'One less: {name}',
  increaseNamed: 'One more: {name}',
  ruleExactly: 'Choose {n}',
  ruleRange: 'Choose {min}–{max}',
  ruleAtLeast: 'Choose at least {n}',
  ruleUpTo: 'Up to {n}',
  ruleOptional: 'Optional',
  needExactly: '{name}: choose {n}',
  needAtLeast: '{name}: choose at least {n}',
  none: 'None',
  remove: 'Remove',
  yourOrder: 'Your order',
  viewOrder: 'View order ({count}) · {price}',
  emptyOrder: 'Your order is empty.',
  subtotal: 'Subtotal',
  discount: 'Discount',
  deliveryFee: 'Delivery',
  total: 'Total',
  minOrder: 'Minimum order {amount}',
  orderType: 'How would you like it?',
  type_dine_in: 'At the table',
  type_pickup: 'Pickup',
  type_delivery: 'Delivery',
  payment: 'Payment',
  pay_cash: 'Cash',
  pay_terminal: 'Card',
  name: 'Name',
  phone: 'Phone',
  email: 'Email',
  optional: '{label} (optional)',
  needName: 'Please enter your name.',
  needPhone: 'Please enter a phone number.',
  needAddress: 'Please enter the delivery address.',
  deliveryAddress: 'Delivery address',
  deliveryNotes: 'Notes for the courier',
  comment: 'Note for the kitchen',
  placeOrder: 'Place order',
  placing: 'Placing your order…',
  fixErrors: 'Please check the fields marked below.',
  networkError: 'Connection problem: your order could not be confirmed. Try again: it will not be placed twice.',
  menuError: 'The menu could not be loaded for ordering. Check the connection and try again.',
  closedNow: 'Ordering is closed right now. You can still browse the menu.',
  closedLink: 'This link does not take orders. You can still browse the menu.',
  ingredients: 'Ingredients',
  offer: 'Offer',
  added: '{name} added to your order',
  order: 'Order {number}',
  status_new: 'Received',
  status_confirmed: 'Confirmed',
  status_preparing: 'Being prepared',
  status_delivering: 'On its way',
  status_completed: 'Completed',
  status_cancelled: 'Cancelled',
  statusLive: 'This page updates by itself: no need to refresh it.',
  stepDone: '(done)',
  placedAt: 'Ordered at {time}',
  readyAt: 'Ready at about {time}',
  wherePickup: 'Pickup at {venue}',
  whereDelivery: 'Delivery to your address',
  cancelledHelp: 'Your order was cancelled. Please ask the staff for help.',
  completedHelp: 'Your order is complete. Enjoy!',
  backToMenu: 'Back to the menu',
  notFound: 'Not found',
  tableNotFound: "This table's code is not active. Please ask the staff.",
  venueNotFound: 'We could not find this menu.',
  notPublished: 'This menu is not published yet.',
  unavailable: 'This menu is not available right now.',
  orderNotFound: 'We could not find this order.',
  other: 'More',
  soldOut: 'Sold out',
  soldOutUntil: 'Sold out until {when}',
  availableFrom: 'Available from {when}',
  notAvailableNow: 'Not available right now',
  notAvailableThen: 'Not available at the chosen time',
  nameStatus: '{name}: {status}',
  pausedUntil: 'Ordering is paused until {when}.',
  pausedNow: 'Ordering is paused for now.',
  closedUntil: 'Ordering is closed until {when}.',
  closedHours: 'Ordering is closed right now.',
  browseMenu: 'You can still browse the menu.',
  orderAhead: 'You can order ahead for a later time.',
  when: 'When would you like it?',
  asap: 'As soon as possible',
  time: 'Time',
  noSlots: 'There is no time left to order for in the coming days.',
  scheduledFor: 'Scheduled for {when}',
  unavailableInCart: 'Some items in your order are not available. Remove them to place your order.',
  removeNamed: 'Remove {name}',
  removed: '{name} removed from your order',
  allergens: 'Allergens',
  mayContain: 'May contain',
  spicy: 'Spicy: {level} of 3',
  notSpicy: 'Not spicy',
  calories: 'Calories',
  nutrition: 'Nutrition per portion',
  n_fat: 'Fat',
  n_saturatedFat: 'of which saturates',
  n_carbohydrate: 'Carbohydrate',
  n_sugars: 'of which sugars',
  n_fibre: 'Fibre',
  n_protein: 'Protein',
  n_salt: 'Salt',
  filter: 'Allergens and diet',
  hideContaining: 'Hide dishes that contain',
  tracesShown: 'Dishes that may contain traces stay on the menu.',
  diet: 'Diet',
  dietAll: 'All dishes',
  hiddenCount: 'Dishes hidden: {count}',
  showAll: 'Show all dishes',
  done: 'Done',
  noneShown: 'No dish matches your choices.',
  foodNote: 'Allergen information is provided by the venue. Ask staff if you have an allergy.',
  /** The page's `<meta name="description">` (search results, link previews): the menu pages and the status page. */
  menuDescription: '{venue}: menu and ordering',
  statusDescription: 'Your order at {venue}',
  /** The banner carousel's buttons, for a mouse without a wheel that scrolls sideways. */
  previousBanner: 'Previous offer',
  nextBanner: 'Next offer',
  /** Between the items of a list ("Cheese, Bacon"): the Arabic comma in Arabic, 、 in Chinese and Japanese. */
  comma: ', ',
};

export type UiStrings = typeof en;
/** By language subtag: pt-BR is `pt`, zh-CN `zh` (the reference has one of each). */
const translations: Record<string, UiStrings> = { uk, es, fr, de, it, pt, ru, pl, cs, zh, ar, ja, uz };

/** The languages the page has its own words in. */
// Marked pure, so the page's script (which gets its words from the data block) bundles no table.
export const UI_LANGUAGES: readonly string[] = /* @__PURE__ */ Object.keys({ en, ...translations });

/** The words a language of the page lacks (shown in English), for the tests. */
export function untranslated(language: string): string[] {
  const own = translations[language] ?? {};
  return Object.keys(en).filter((key) => !(key in own));
}

/** The page's words in `locale` (its language subtag), English where a word is missing. */
export function uiStrings(locale: string): UiStrings {
  const language = locale.toLowerCase().split(/[-_]/)[0];
  return { ...en, ...translations[language] };
}

/** `{name}` placeholders filled (values are text: the caller escapes for HTML). */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
}

const RTL_LANGUAGES = new Set(['ar', 'he', 'fa', 'ur', 'ps', 'sd', 'ug', 'yi', 'dv', 'ckb', 'ku']);

/** Writing direction of a locale's language. */
export function directionOf(locale: string): 'rtl' | 'ltr' {
  return RTL_LANGUAGES.has(locale.toLowerCase().split(/[-_]/)[0]) ? 'rtl' : 'ltr';
}

/**
 * A table's name as the guest reads it as the venue wrote it ("Table 5", "Terrace 2"),
 * so "Table" is never said twice; a name with no letter at all ("5", "12") gets the word
 * ("Table 5"), which a bare number would not say.
 */
export function tableLabel(name: string, strings: Pick<UiStrings, 'table'>): string {
  return /\p{L}/u.test(name) ? name : fill(strings.table, { name });
}
