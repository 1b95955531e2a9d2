/**
 * The single-table key design: every item's keys are built here and nowhere else.
 *
 * | Item              | PK                   | SK                          | Index keys (sparse unless noted)                         |
 * |-------------------|----------------------|-----------------------------|----------------------------------------------------------|
 * | API key           | APIKEY#<sha256 hex>  | APIKEY                      | GSI1: APIKEYS / <key id>  (the user's fields are copied in: one GetItem per auth; `revoked_at` once revoked) |
 * | User              | USER#<uuid>          | PROFILE                     | –                                                        |
 * | Template          | TPL#<uuid>           | META                        | list indexes + Trending while public, Featured while featured and public (table.ts) |
 * | Slug claim        | SLUG#<slug>          | SLUG                        | –  (written with the template in one transaction)        |
 * | Template version  | TPL#<uuid>           | VER#<000001.000002.000003>  | –  (query newest first)                                   |
 * | Review            | TPL#<uuid>           | REVIEW#<user uuid>          | GSI1: TPLREV#<tpl> / <created_at>#<review uuid>          |
 * | Install marker    | WS#<workspace uuid>  | INSTALL#<template uuid>     | GSI1: WSINST#<ws> / <installed_at>#<tpl>                 |
 * | Category counter  | CATEGORY#<name>      | COUNT                       | –  (`count` = public templates; changed in the same transaction as the template) |
 * | Search posting    | TOKEN#[<category>/]<word prefix> | <created_at>#<template uuid> | –  (per 2-, 4- and 6-character prefix of each word of a public template, in the catalog-wide list and its category's; newest first) |
 * | … by popularity   | TOKPOP#[<category>/]<word prefix> | <popularity bucket, 3 digits>#<created_at>#<uuid> | –  (same lists; bucket of installs, see popularity-bucket.ts) |
 * | … by rating       | TOKRATE#[<category>/]<word prefix> | <ratingKey>#<created_at>#<uuid> | –  (same lists; rating_avg, then rating_count) |
 * | Search count      | TOKCOUNT#[<category>/]<word prefix> | COUNT                    | –  (`count` = public templates with a word starting so; every prefix of 2–16 characters) |
 * | Search state      | TPL#<uuid>           | SEARCH                      | –  (what the search indexer has written for the template: its postings and counts) |
 * | Agent             | AGENT#<agt_…>        | META                        | GSI1: OWNER#<user uuid> / AGENT#<agt_…>                  |
 * | Contract          | CONTRACT#<ctr_…>     | META                        | –                                                        |
 * | Event (outbox)    | AGENT#<agt_…>        | EVT#<evt_…>                 | –  (ids sort by feed position: the polling feed is one Query) |
 * | Feed gap          | AGENT#<agt_…>        | EVT#<evt_…>                 | –  (fills a feed slot whose writer gave up; entity feedGap) |
 * | Delivery          | AGENT#<agt_…>        | DLV#<dlv_…>                 | –  (newest first = Query backwards; dlv id = evt id's suffix) |
 *   (index DeliveriesByStatus, KEYS_ONLY: `dlvStatus` = AGENT#<agt_…>#<status> / SK: one agent's deliveries of one status, newest first)
 * | Agent counter     | USER#<uuid>          | AGENTS                      | –  (`count`, +1 in the same transaction as each agent; the per-account cap) |
 * | Verify limiter    | AGENT#<agt_…>        | LIMIT#VERIFY                | –  (the handshake lease and the per-minute window; docs/webhooks.md) |
 * | Stream lease      | AGENT#<agt_…>        | STREAM#<slot 0…cap-1>       | –  (one concurrent SSE stream per slot, with expiry; docs/events.md) |
 * | Idempotency key   | IDEMPOTENCY#<user uuid>#<sha256 hex of the key> | IDEMPOTENCY | –  (the first answer to a POST with `Idempotency-Key`; TTL 24 h) |
 *
 * Every item has `entity` (its kind), so stream filters and debugging never parse keys.
 */

export const ENTITY = {
  apiKey: 'apiKey',
  user: 'user',
  template: 'template',
  slug: 'slug',
  version: 'version',
  review: 'review',
  install: 'install',
  categoryCount: 'categoryCount',
  searchPosting: 'searchPosting',
  searchCount: 'searchCount',
  searchState: 'searchState',
  agent: 'agent',
  contract: 'contract',
  event: 'event',
  feedGap: 'feedGap',
  delivery: 'delivery',
  agentCount: 'agentCount',
  verifyLimit: 'verifyLimit',
  streamLease: 'streamLease',
  idempotency: 'idempotency',
} as const;

/** The three orders of search postings (the list sorts of the API). */
export type SearchOrder = 'recent' | 'popular' | 'rating';
const POSTING_PREFIX: Record<SearchOrder, string> = { recent: 'TOKEN#', popular: 'TOKPOP#', rating: 'TOKRATE#' };
const searchPostingPk = (order: SearchOrder, list: string): string => `${POSTING_PREFIX[order]}${list}`;

export interface Key {
  PK: string;
  SK: string;
}

export const keys = {
  apiKey: (hash: string): Key => ({ PK: `APIKEY#${hash}`, SK: 'APIKEY' }),
  /** Every key in one index partition: only the admin commands read it (list, revoke by key id). */
  apiKeysIndexPk: 'APIKEYS',
  user: (userId: string): Key => ({ PK: `USER#${userId}`, SK: 'PROFILE' }),

  template: (templateId: string): Key => ({ PK: `TPL#${templateId}`, SK: 'META' }),
  slug: (slug: string): Key => ({ PK: `SLUG#${slug}`, SK: 'SLUG' }),
  version: (templateId: string, sortableVersion: string): Key => ({ PK: `TPL#${templateId}`, SK: `VER#${sortableVersion}` }),
  versionPrefix: 'VER#',
  review: (templateId: string, userId: string): Key => ({ PK: `TPL#${templateId}`, SK: `REVIEW#${userId}` }),
  reviewsIndexPk: (templateId: string): string => `TPLREV#${templateId}`,
  install: (workspaceId: string, templateId: string): Key => ({ PK: `WS#${workspaceId}`, SK: `INSTALL#${templateId}` }),
  installsIndexPk: (workspaceId: string): string => `WSINST#${workspaceId}`,
  categoryCount: (category: string): Key => ({ PK: `CATEGORY#${category}`, SK: 'COUNT' }),
  searchPosting: (order: SearchOrder, list: string, sortKey: string): Key => ({ PK: searchPostingPk(order, list), SK: sortKey }),
  searchPostingPk: (order: SearchOrder, list: string): string => searchPostingPk(order, list),
  searchCount: (list: string): Key => ({ PK: `TOKCOUNT#${list}`, SK: 'COUNT' }),
  searchState: (templateId: string): Key => ({ PK: `TPL#${templateId}`, SK: 'SEARCH' }),

  agent: (agentId: string): Key => ({ PK: `AGENT#${agentId}`, SK: 'META' }),
  agentsIndexPk: (userId: string): string => `OWNER#${userId}`,
  agentsIndexSk: (agentId: string): string => `AGENT#${agentId}`,
  contract: (contractId: string): Key => ({ PK: `CONTRACT#${contractId}`, SK: 'META' }),
  event: (agentId: string, eventId: string): Key => ({ PK: `AGENT#${agentId}`, SK: `EVT#${eventId}` }),
  eventPrefix: 'EVT#',
  delivery: (agentId: string, deliveryId: string): Key => ({ PK: `AGENT#${agentId}`, SK: `DLV#${deliveryId}` }),
  deliveryPrefix: 'DLV#',
  /** Partition of the DeliveriesByStatus index (table.ts): an agent's deliveries in one status. */
  deliveryStatusIndexPk: (agentId: string, status: string): string => `AGENT#${agentId}#${status}`,
  agentCount: (userId: string): Key => ({ PK: `USER#${userId}`, SK: 'AGENTS' }),
  verifyLimit: (agentId: string): Key => ({ PK: `AGENT#${agentId}`, SK: 'LIMIT#VERIFY' }),
  streamLease: (agentId: string, slot: number): Key => ({ PK: `AGENT#${agentId}`, SK: `STREAM#${slot}` }),
  idempotency: (userId: string, keyHash: string): Key => ({ PK: `IDEMPOTENCY#${userId}#${keyHash}`, SK: 'IDEMPOTENCY' }),
} as const;

/** Strips the key attributes and index attributes so stored items never leak into responses. */
export function withoutKeys<T extends Record<string, unknown>>(item: T): Omit<T, 'PK' | 'SK' | 'GSI1PK' | 'GSI1SK' | 'entity'> {
  const { PK: _pk, SK: _sk, GSI1PK: _g1pk, GSI1SK: _g1sk, entity: _entity, ...rest } = item;
  return rest;
}
