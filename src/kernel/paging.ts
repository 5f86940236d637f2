/** The page size of every paged listing (GET /entries, GET /reports/detailed) when `limit` is not given. */
export const DEFAULT_PAGE_SIZE = 50;

/** One page of a cursor-paged listing. */
export interface Page<Row> {
  rows: Row[];
  /** The cursor of the next page, or null on the last one. */
  nextCursor: string | null;
}
