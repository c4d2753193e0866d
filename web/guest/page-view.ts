// What the menu page's views share: the page's data and words, times and money in its language,
// and the live region that reads a change out.
import { When } from '../../src/modules/guest-page/shared/availability.js';
import type { PageData } from '../../src/modules/guest-page/shared/page-data.js';
import type { UiStrings } from '../../src/modules/guest-page/shared/strings.js';
import { formatMoney } from '../../src/shared/money.js';
import { byId } from '../shared/dom.js';

export interface PageView {
  data: PageData;
  t: UiStrings;
  when: When;
  money(minor: number): string;
  /** Always with its sign: a price adjustment "+€0.70", a discount "-€1.00". */
  signedMoney(minor: number): string;
  /** Says `text` to a screen reader (the page's live region). */
  announce(text: string): void;
}

export function pageView(data: PageData): PageView {
  return {
    data,
    t: data.strings,
    when: new When(data.locale, data.timeZone),
    money: (minor) => formatMoney(minor, data.currency, data.locale),
    signedMoney: (minor) => formatMoney(minor, data.currency, data.locale, true),
    announce: (text) => {
      const el = byId('announce');
      if (el) el.textContent = text;
    },
  };
}
