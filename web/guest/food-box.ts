// What the product dialog shows of the dish besides its choices: its photo, and its food
// information in words.
import { foodFacts } from '../../src/modules/guest-page/shared/food.js';
import { h } from '../shared/dom.js';
import type { MenuProduct } from './menu-types.js';
import type { PageView } from './page-view.js';

/**
 * The dish's food information: labels and spice, allergens, traces, and nutrition per portion as a
 * table; null when the dish says none.
 */
export function foodBox(product: MenuProduct, view: PageView): HTMLElement | null {
  const { t, data } = view;
  const facts = foodFacts(product, t, data.food, data.locale);
  const tags = [
    ...facts.labels.map((name) => h('span', { class: 'tag tag-diet' }, name)),
    facts.spice ? h('span', { class: 'tag tag-spice', id: 'pd-spice' }, facts.spice.text) : null,
  ].filter((x) => x !== null);
  const line = (label: string, names: string[], id: string) =>
    names.length > 0 ? h('p', { class: 'meta', id }, h('span', { class: 'label' }, `${label}:`), ` ${names.join(t.comma)}`) : null;
  const table =
    facts.nutrition.length > 0
      ? h(
          'table',
          { class: 'nutrition', id: 'pd-nutrition' },
          h('caption', {}, t.nutrition),
          h(
            'tbody',
            {},
            ...facts.nutrition.map((r) =>
              h('tr', { class: r.part ? 'part' : null }, h('th', { scope: 'row' }, r.label), h('td', {}, r.value)),
            ),
          ),
        )
      : null;
  const parts = [
    // Spaced, so the words read apart (flex items: the space does not show).
    tags.length > 0 ? h('p', { class: 'tags' }, ...tags.flatMap((tag, i) => (i === 0 ? [tag] : [' ', tag]))) : null,
    line(t.allergens, facts.allergens, 'pd-allergens'),
    line(t.mayContain, facts.mayContain, 'pd-may-contain'),
    table,
  ].filter((x) => x !== null);
  return parts.length > 0 ? h('div', { class: 'food' }, ...parts) : null;
}

/** The dish's photo at the top of its dialog, whole (not cropped), from the stored sizes. */
export function productPhoto(product: MenuProduct): HTMLElement | null {
  const image = product.image;
  if (!image || image.variants.length === 0) return null;
  const smallest = image.variants[image.variants.length - 1];
  return h('img', {
    class: 'dialog-image',
    src: smallest.url,
    srcset: image.variants.map((v) => `${v.url} ${v.width}w`).join(', '),
    sizes: '(min-width: 48rem) 36rem, 100vw',
    width: smallest.width,
    height: smallest.height,
    alt: '',
    decoding: 'async',
  });
}
