// Amounts in minor units as a guest or the staff read them. Free of Node and of the DOM: the guest
// page's first paint, the CLI and both browser scripts (web/guest, web/console) format with it, so a
// price reads the same everywhere.

/**
 * Digits after the decimal point of a currency's minor unit (ISO 4217): amounts in the API are
 * minor units. Not Intl's own digits, which follow cash usage (COP shows none, yet is 2 in ISO).
 */
const MINOR_DIGITS: Record<string, number> = { CLP: 0, JPY: 0, KRW: 0, KWD: 3, BHD: 3, OMR: 3, JOD: 3, TND: 3 };

export function minorDigits(currency: string): number {
  return MINOR_DIGITS[currency.toUpperCase()] ?? 2;
}

const formatters = new Map<string, Intl.NumberFormat>();

function formatter(locale: string, currency: string, signed: boolean): Intl.NumberFormat {
  const key = `${locale}|${currency}|${signed}`;
  let f = formatters.get(key);
  if (!f) {
    const digits = minorDigits(currency);
    const options = {
      style: 'currency',
      currency,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
      signDisplay: signed ? 'always' : 'auto',
    } as const;
    try {
      f = new Intl.NumberFormat(locale, options);
    } catch {
      // A locale tag Intl does not know still gets the currency right.
      f = new Intl.NumberFormat('en', options);
    }
    formatters.set(key, f);
  }
  return f;
}

/**
 * Minor units in the currency's own precision (CLP has none, most two), in the guest's locale.
 * `signed` always shows the sign (a price adjustment "+€0.70", a discount "-€1.00"), placed by Intl
 * with the bidi marks the locale needs, so right to left it stays by its number.
 */
export function formatMoney(minor: number, currency: string, locale: string, signed = false): string {
  return formatter(locale, currency, signed).format(minor / 10 ** minorDigits(currency));
}
