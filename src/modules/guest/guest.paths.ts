/** A venue's guest API, as the links the server hands out (Location, the page's data). */
export const guestVenuePath = (slug: string) => `/guest/v1/venues/${encodeURIComponent(slug)}`;

/** Where the guest reads an order back: the creation response's Location. */
export const guestOrderPath = (slug: string, token: string) => `${guestVenuePath(slug)}/orders/${token}`;
