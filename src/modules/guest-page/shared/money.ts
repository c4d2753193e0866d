// Shared by the server's first paint and the page's script, so a price reads the same in both.

const formatters = new Map<string, Intl.NumberFormat>();

function formatter(locale: string, currency: string): Intl.NumberFormat {
  const key = `${locale}|${currency}`;
  let f = formatters.get(key);
  if (!f) {
    try {
      f = new Intl.NumberFormat(locale, { style: 'currency', currency });
    } catch {
      // A locale tag Intl does not know still gets the currency right.
      f = new Intl.NumberFormat('en', { style: 'currency', currency });
    }
    formatters.set(key, f);
  }
  return f;
}

/** Minor units in the currency's own precision (JPY has none, KWD three), in the guest's locale. */
export function formatMoney(minor: number, currency: string, locale: string): string {
  const f = formatter(locale, currency);
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  return f.format(minor / 10 ** digits);
}
