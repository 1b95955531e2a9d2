/**
 * The table's shape, as plain data: the CDK stack and the local runtime both build the table
 * from this, so the indexes in AWS and on a laptop are the same. Key design: keys.ts.
 */
export interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey: string;
  /** KEYS_ONLY keeps an index from being rewritten when a non-key attribute (a counter) changes. */
  projection: 'ALL' | 'KEYS_ONLY';
  /**
   * 'N' for sort keys that are counters kept with `ADD` inside a transaction (no read-modify-write,
   * so concurrent installs never lose an increment). Default 'S'. An attribute name has one type
   * across all indexes.
   */
  sortKeyType?: 'S' | 'N';
}

export const TABLE_KEYS = { partitionKey: 'PK', sortKey: 'SK' } as const;

/** Attribute holding the expiry (epoch seconds) of items that have one: events, deliveries. */
export const TTL_ATTRIBUTE = 'expires_at';

export const INDEXES = {
  /** Generic child listings: reviews of a template, installs of a workspace, agents of a user. */
  gsi1: { name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK', projection: 'ALL' },
  /**
   * Public template lists. `listAll` = "PUBLIC" and `listCat` = "CAT#<category>" exist only while a
   * template is public, so private and unlisted templates are in no list index.
   */
  allByPopular: {
    name: 'AllByPopular',
    partitionKey: 'listAll',
    sortKey: 'popKey',
    projection: 'KEYS_ONLY',
    sortKeyType: 'N',
  },
  allByRecent: { name: 'AllByRecent', partitionKey: 'listAll', sortKey: 'recentKey', projection: 'KEYS_ONLY' },
  allByRating: { name: 'AllByRating', partitionKey: 'listAll', sortKey: 'ratingKey', projection: 'KEYS_ONLY' },
  catByPopular: {
    name: 'CatByPopular',
    partitionKey: 'listCat',
    sortKey: 'popKey',
    projection: 'KEYS_ONLY',
    sortKeyType: 'N',
  },
  catByRecent: { name: 'CatByRecent', partitionKey: 'listCat', sortKey: 'recentKey', projection: 'KEYS_ONLY' },
  catByRating: { name: 'CatByRating', partitionKey: 'listCat', sortKey: 'ratingKey', projection: 'KEYS_ONLY' },
  /** Operator-picked templates: `featuredList` exists only while featured and public. */
  featured: { name: 'Featured', partitionKey: 'featuredList', sortKey: 'featuredAt', projection: 'KEYS_ONLY' },
  /**
   * Trending: `trendList` = "TREND#<UTC day of the template's last install>" while public, `trendKey` =
   * its installs over the 7 days ending that day. A template idle for a week sits in a partition
   * nobody reads any more, so the trending read stays at 7 small queries however old the catalog.
   */
  trending: {
    name: 'Trending',
    partitionKey: 'trendList',
    sortKey: 'trendKey',
    projection: 'KEYS_ONLY',
    sortKeyType: 'N',
  },
  /**
   * An agent's failing deliveries (`?status=failed` and `?status=pending` on the deliveries list):
   * `dlvStatus` is set by the write that records a failed attempt and removed by the one that
   * records a success, so a delivery that succeeds at once writes no entry (docs/cost.md). KEYS_ONLY,
   * so recording an attempt (which changes other attributes) writes the index only when its entry moves.
   */
  deliveriesByStatus: { name: 'DeliveriesByStatus', partitionKey: 'dlvStatus', sortKey: 'SK', projection: 'KEYS_ONLY' },
} as const satisfies Record<string, IndexDefinition>;

export const indexList: IndexDefinition[] = Object.values(INDEXES);
