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
 * | Agent             | AGENT#<agt_…>        | META                        | GSI1: OWNER#<user uuid> / AGENT#<agt_…>                  |
 * | Contract          | CONTRACT#<ctr_…>     | META                        | –                                                        |
 * | Event (outbox)    | AGENT#<agt_…>        | EVT#<evt_…>                 | –  (ids sort by feed position: the polling feed is one Query) |
 * | Feed gap          | AGENT#<agt_…>        | EVT#<evt_…>                 | –  (fills a feed slot whose writer gave up; entity feedGap) |
 * | Delivery          | AGENT#<agt_…>        | DLV#<dlv_…>                 | –  (newest first = Query backwards; dlv id = evt id's suffix) |
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
  agent: 'agent',
  contract: 'contract',
  event: 'event',
  feedGap: 'feedGap',
  delivery: 'delivery',
} as const;

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
  searchPosting: (list: string, recentKey: string): Key => ({ PK: `TOKEN#${list}`, SK: recentKey }),
  searchPostingPk: (list: string): string => `TOKEN#${list}`,

  agent: (agentId: string): Key => ({ PK: `AGENT#${agentId}`, SK: 'META' }),
  agentsIndexPk: (userId: string): string => `OWNER#${userId}`,
  agentsIndexSk: (agentId: string): string => `AGENT#${agentId}`,
  contract: (contractId: string): Key => ({ PK: `CONTRACT#${contractId}`, SK: 'META' }),
  event: (agentId: string, eventId: string): Key => ({ PK: `AGENT#${agentId}`, SK: `EVT#${eventId}` }),
  eventPrefix: 'EVT#',
  delivery: (agentId: string, deliveryId: string): Key => ({ PK: `AGENT#${agentId}`, SK: `DLV#${deliveryId}` }),
  deliveryPrefix: 'DLV#',
} as const;

/** Strips the key attributes and index attributes so stored items never leak into responses. */
export function withoutKeys<T extends Record<string, unknown>>(item: T): Omit<T, 'PK' | 'SK' | 'GSI1PK' | 'GSI1SK' | 'entity'> {
  const { PK: _pk, SK: _sk, GSI1PK: _g1pk, GSI1SK: _g1sk, entity: _entity, ...rest } = item;
  return rest;
}
