/** A list request's page (page from 1, limit 1..100 with the route's default). */
export function pageWindow(query: { page?: number; limit?: number }, defaultLimit = 20): { page: number; limit: number; offset: number } {
  const page = query.page ?? 1;
  const limit = query.limit ?? defaultLimit;
  return { page, limit, offset: (page - 1) * limit };
}

/** The list envelope around one page of items. */
export function listEnvelope<T>(items: T[], total: number, page: number, limit: number) {
  return { items, total, page, limit, totalPages: Math.ceil(total / limit) };
}
