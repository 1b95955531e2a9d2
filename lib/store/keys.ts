/**
 * The single-table key design: every item's keys are built here and in its builders
 * (lib/store/key-builders.ts, one export each), and nowhere else.
 *
 * | Item              | PK                   | SK                          | Index keys (sparse unless noted)                         |
 * |-------------------|----------------------|-----------------------------|----------------------------------------------------------|
 * | API key           | APIKEY#<sha256 hex>  | APIKEY                      | GSI1: APIKEYS / <key id>  (the user's fields are copied in: one GetItem per auth; `revoked_at` once revoked) |
 * | User              | USER#<uuid>          | PROFILE                     | –                                                        |
 * | Template          | TPL#<uuid>           | META                        | list indexes + Trending while public, Featured while featured and public (table.ts) |
 * | Slug claim        | SLUG#<slug>          | SLUG                        | –  (written with the template in one transaction)        |
 * | Template version  | TPL#<uuid>           | VER#<000001.000002.000003>  | –  (query newest first)                                   |
 * | Review            | TPL#<uuid>           | REVIEW#<user uuid>          | GSI1: TPLREV#<tpl> / <created_at>#<review uuid>; TPLREVHID#<tpl> / same while hidden |
 * | Install marker    | WS#<workspace uuid>  | INSTALL#<template uuid>     | GSI1: WSINST#<ws> / <installed_at>#<tpl>                 |
 * | Category counter  | CATEGORY#<name>      | COUNT                       | –  (`count` = public templates; changed in the same transaction as the template) |
 * | Search posting    | TOKEN#[<category>/]<word prefix> | <created_at>#<template uuid> | –  (per 2-, 4- and 6-character prefix of each word of a public template, in the catalog-wide list and its category's; newest first) |
 * | … by popularity   | TOKPOP#[<category>/]<word prefix> | <popularity bucket, 3 digits>#<created_at>#<uuid> | –  (same lists; bucket of installs, see lib/marketplace/search/popularity-bucket.ts) |
 * | … by rating       | TOKRATE#[<category>/]<word prefix> | <ratingKey>#<created_at>#<uuid> | –  (same lists; rating_avg, then rating_count) |
 * | Search count      | TOKCOUNT#[<category>/]<word prefix> | COUNT                    | –  (`count` = public templates with a word starting so; every prefix of 2–16 characters) |
 * | Search state      | TPL#<uuid>           | SEARCH                      | –  (what the search indexer has written for the template: its postings and counts) |
 * | Search pair       | TOKPAIR#<word prefix> | <word cut to 6 characters>#<uuid> | –  (per indexed prefix × word cut of a public template of at most 24 word cuts: "never together" in one read, lib/marketplace/search/word-pairs.ts) |
 * | Search wide       | TOKWIDE#<word prefix> | <uuid>                     | –  (per indexed prefix of a public template with more word cuts: it has no pair items) |
 * | Search format     | SEARCHINDEX          | FORMAT                      | –  (`format`: every public template's index has this format; written by `admin reindex-search`) |
 * | Agent             | AGENT#<agt_…>        | META                        | GSI1: OWNER#<user uuid> / AGENT#<agt_…>                  |
 * | Contract          | CONTRACT#<ctr_…>     | META                        | –                                                        |
 * | Contract link     | USER#<uuid> or AGENT#<agt_…> | CTR#<ctr_…>         | GSI1: CTRS#<uuid or agt_…>#<status> / CTR#<ctr_…>  (one per party user and party agent, status kept in the contract's transactions: GET /contracts) |
 * | Event (outbox)    | AGENT#<agt_…>        | EVT#<evt_…>                 | –  (ids sort by feed position: the polling feed is one Query) |
 * | Feed gap          | AGENT#<agt_…>        | EVT#<evt_…>                 | –  (fills a feed slot whose writer gave up; entity feedGap) |
 * | Delivery          | AGENT#<agt_…>        | DLV#<dlv_…>                 | –  (newest first = Query backwards; dlv id = evt id's suffix, or for a replay one at the same position) |
 *   (index DeliveriesByStatus, KEYS_ONLY, failures only: `dlvStatus` = AGENT#<agt_…>#failed or #pending (retrying after a failed attempt) / SK: newest first; a success removes it)
 * | Replay page       | AGENT#<agt_…>        | REPLAY#<job uuid>#<page, 6 digits> | –  (one page of a replay job; its INSERT reaches the relay, which writes the next; TTL 7 days) |
 * | Agent counter     | USER#<uuid>          | AGENTS                      | –  (`count`, +1 in the same transaction as each agent; the per-account cap) |
 * | Verify limiter    | AGENT#<agt_…>        | LIMIT#VERIFY                | –  (the handshake lease and the per-minute window; docs/webhooks.md) |
 * | Handshake limiter | USER#<uuid>          | LIMIT#HANDSHAKE             | –  (webhook handshakes the account started in the current window, all agents; docs/limits.md) |
 * | Replay limiter    | AGENT#<agt_…>        | LIMIT#REPLAY                | –  (replays started in the current window; docs/limits.md) |
 * | Stream lease      | AGENT#<agt_…>        | STREAM#<slot 0…cap-1>       | –  (one concurrent SSE stream per slot, with expiry; docs/events.md) |
 * | Push connections  | AGENT#<agt_…>        | PUSH                        | –  (the agent's open WebSocket connections, one attribute per slot `s0`…`s<cap-1>`: its id, key hash, expiry and the cursor of what it was sent; one write moves the cursors of a fan-out; lib/events/push/) |
 * | Push connection   | PUSHCONN#<connection id> | PUSHCONN                | –  (which agent and slot a connection holds: $default and $disconnect name only the connection) |
 * | Push message limiter | PUSHCONN#<connection id> | LIMIT#MESSAGES       | –  (messages the connection sent in the current window, refused ones too; lib/events/push/message-limit.ts) |
 * | Push key limiter  | APIKEY#<sha256 hex>  | LIMIT#PUSH                  | –  (push messages of all the key's connections in the current window) |
 * | Idempotency key   | IDEMPOTENCY#<user uuid>#<sha256 hex of the key> | IDEMPOTENCY | –  (the first answer to a POST, PUT, PATCH or DELETE with `Idempotency-Key`; TTL 24 h) |
 * | Slug claim (author) | SLUG#<slug>        | SLUG                        | GSI1: AUTHOR#<user uuid> / <created_at>#<template uuid>  (an author's templates: marking an author verified walks them) |
 * | Installer         | TPL#<uuid>           | INSTALLER#<workspace uuid>  | –  (written with the install marker: who installed a template, for the lifecycle notices) |
 * | Daily stats       | TPL#<uuid>           | STATS#<yyyy>#<sortable version>#<shard 0–7> | –  (per template, UTC year and version, in 8 shards so concurrent writers seldom meet; `<i|c|r|s><day of year, 3 digits>` = installs, contracts, reviews, rating sum; ADD in the writes that count) |
 * | Version notice    | TPL#<uuid>           | NOTICE#<notice uuid>#<page, 6 digits> | –  (one page of installers told of a deprecation or yank; its INSERT reaches the relay, which writes the next; TTL 7 days) |
 * | Version change limiter | TPL#<uuid>      | LIMIT#VERSIONS              | –  (version changes in the current window; docs/limits.md) |
 * | Visibility limiter | TPL#<uuid>          | LIMIT#VISIBILITY            | –  (visibility changes in the current window; docs/limits.md) |
 * | Notice gate       | TPL#<uuid>           | NOTICEGATE                  | –  (notices started in the current window, their ids, and the window a flush is due for; docs/limits.md) |
 * | Notice due        | TPL#<uuid>           | NOTICEDUE#<kind>#<version>  | –  (a notice that waits for the window's end; a later one of the same kind and version replaces it) |
 * | Notice receipt    | WS#<workspace uuid>  | NOTICE#<notice uuid>        | –  (written with the workspace's events of one notice: a page run twice tells nobody twice; TTL 30 days) |
 * | Template-event agents | WS#<workspace uuid> | EVENTAGENTS              | –  (the workspace's agents that receive template events; PUT …/installed/agents) |
 * | Report            | REPORT#TPL#<uuid> or REPORT#REV#<uuid>#<reviewer uuid> | BY#<reporter uuid> | GSI1 while open: REPORTS#OPEN / <created_at>#<report uuid> |
 * | Report limiter    | USER#<uuid>          | LIMIT#REPORT                | –  (reports filed in the current window; docs/marketplace.md) |
 * | Destination       | AGENT#<agt_…>        | DEST#<dst_…>                | –  (an agent's SQS queue or EventBridge bus, lib/destinations; the agent item's `destination_count` is its cap) |
 * | Destination verification request | AGENT#<agt_…> | DESTVERIFY#<dst_…>#<ms> | –  (written by a registration or a verify call that wants a new code; its INSERT reaches the relay, which queues the message; TTL 1 day) |
 * | Destination registration limiter | USER#<uuid> | LIMIT#DESTINATION | –  (destinations registered in the current window; docs/limits.md) |
 * | Moderation action | MODACTION#<uuid>     | MODACTION                   | GSI1: MODLOG / <created_at>#<action uuid>  (the operators' audit trail, newest first; one partition: operator actions are few) |
 * | Protected names   | GATE#PROTECTED       | NAMES                       | –  (verified publishers' names and slugs as the publish gate compares them: a string set `entries` of `<author>|<publisher or slug>|<skeleton>`, ADD/DELETE only; lib/marketplace/templates/gate.ts) |
 * | Portal link       | PORTAL#<pl_…>        | LINK                        | –  (an agent's portal token: its SHA-256, agent, owner, expiry; `revoked_at` once revoked; TTL a day after expiry) |
 *
 * Every item has `entity` (its kind), so stream filters and debugging never parse keys.
 */

import { INDEXES } from './table.ts';

export const ENTITY = {
  protectedNames: 'protectedNames',
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
  searchPair: 'searchPair',
  searchWide: 'searchWide',
  searchIndexFormat: 'searchIndexFormat',
  agent: 'agent',
  contract: 'contract',
  contractLink: 'contractLink',
  event: 'event',
  feedGap: 'feedGap',
  delivery: 'delivery',
  replayPage: 'replayPage',
  agentCount: 'agentCount',
  verifyLimit: 'verifyLimit',
  replayLimit: 'replayLimit',
  handshakeLimit: 'handshakeLimit',
  streamLease: 'streamLease',
  pushConnections: 'pushConnections',
  pushConnection: 'pushConnection',
  pushMessageLimit: 'pushMessageLimit',
  pushKeyLimit: 'pushKeyLimit',
  idempotency: 'idempotency',
  installer: 'installer',
  templateStats: 'templateStats',
  versionNotice: 'versionNotice',
  noticeReceipt: 'noticeReceipt',
  eventAgents: 'eventAgents',
  report: 'report',
  reportLimit: 'reportLimit',
  versionChangeLimit: 'versionChangeLimit',
  visibilityLimit: 'visibilityLimit',
  noticeGate: 'noticeGate',
  noticeDue: 'noticeDue',
  moderationAction: 'moderationAction',
  portalLink: 'portalLink',
  destination: 'destination',
  destinationVerifyRequest: 'destinationVerifyRequest',
  destinationRegistrationLimit: 'destinationRegistrationLimit',
} as const;

/** The three orders of search postings (the list sorts of the API). */
export type SearchOrder = 'recent' | 'popular' | 'rating';
const POSTING_PREFIX: Record<SearchOrder, string> = { recent: 'TOKEN#', popular: 'TOKPOP#', rating: 'TOKRATE#' };
export const searchPostingPk = (order: SearchOrder, list: string): string => `${POSTING_PREFIX[order]}${list}`;

export interface Key {
  PK: string;
  SK: string;
}

// The builders of each item's keys: lib/store/key-builders.ts (one export each, so bundles keep only theirs).

/** The partitions of the public template lists (table.ts INDEXES). */
export const templateLists = {
  all: 'PUBLIC',
  featured: 'FEATURED',
  category: (category: string): string => `CAT#${category}`,
  /** Trending: the UTC day of the template's last install. */
  trendDay: (day: string): string => `TREND#${day}`,
} as const;

/** The list-index attributes of a template item: present only while it is in that list. */
export interface TemplateListAttributes {
  listAll?: string;
  listCat?: string;
  trendList?: string;
  featuredList?: string;
  featuredAt?: string;
}

interface ListState {
  id: string;
  visibility: string;
  /** Hidden by an operator (lib/marketplace/moderation). */
  hidden?: boolean | undefined;
  /** Every version yanked (lib/marketplace/lifecycle). */
  all_yanked?: boolean | undefined;
  category: string;
  featured?: boolean | undefined;
  featured_at?: string | undefined;
  trend_day?: string | undefined;
}

/** Whether a template belongs in the public lists, search, trending and the category counts: public, not hidden, not every version yanked. */
export const isListed = (state: Pick<ListState, 'visibility' | 'hidden' | 'all_yanked'>): boolean =>
  state.visibility === 'public' && state.hidden !== true && state.all_yanked !== true;

/**
 * The list-index attributes a template in `state` must have (set) and must not have (remove): a
 * template is in the lists only while listed (isListed), in Trending once installed, in Featured while featured.
 */
export function listPartitions(state: ListState): { set: Record<string, string>; remove: string[] } {
  const wanted: Record<string, string | undefined> = {};
  if (isListed(state)) {
    wanted[INDEXES.allByRecent.partitionKey] = templateLists.all;
    wanted[INDEXES.catByRecent.partitionKey] = templateLists.category(state.category);
    if (state.trend_day) wanted[INDEXES.trending.partitionKey] = templateLists.trendDay(state.trend_day);
    if (state.featured && state.featured_at) {
      wanted[INDEXES.featured.partitionKey] = templateLists.featured;
      wanted[INDEXES.featured.sortKey] = `${state.featured_at}#${state.id}`;
    }
  }
  const all = [
    INDEXES.allByRecent.partitionKey,
    INDEXES.catByRecent.partitionKey,
    INDEXES.trending.partitionKey,
    INDEXES.featured.partitionKey,
    INDEXES.featured.sortKey,
  ];
  const set = Object.fromEntries(Object.entries(wanted).filter((e): e is [string, string] => e[1] !== undefined));
  return { set, remove: all.filter((a) => !(a in set)) };
}

/** The template id of a template item's key (as read from a KEYS_ONLY list index). */
export const templateIdOf = (key: Key): string => key.PK.slice('TPL#'.length);

/**
 * Keys of the item kinds that only one module uses, apart from `keys` so that every other
 * function's bundle does not carry them (an object's members are never tree-shaken).
 */
export const contractLinkKeys = {
  /** A party's link to a contract: `party` is a user id (UUID) or an agent id (agt_…). */
  link: (party: string, contractId: string): Key => ({
    PK: party.startsWith('agt_') ? `AGENT#${party}` : `USER#${party}`,
    SK: `CTR#${contractId}`,
  }),
  prefix: 'CTR#',
  /** GSI1 entry of a link: one party's contracts in one status, newest first. */
  index: (party: string, status: string, contractId: string) => ({
    GSI1PK: contractLinkKeys.byStatusPk(party, status),
    GSI1SK: `CTR#${contractId}`,
  }),
  byStatusPk: (party: string, status: string): string => `CTRS#${party}#${status}`,
} as const;

/** A portal link (lib/portal): found by the id its token carries. */
export const portalLinkKey = (linkId: string): Key => ({ PK: `PORTAL#${linkId}`, SK: 'LINK' });

export const replayLimitKey = (agentId: string): Key => ({ PK: `AGENT#${agentId}`, SK: 'LIMIT#REPLAY' });

export const handshakeLimitKey = (userId: string): Key => ({ PK: `USER#${userId}`, SK: 'LIMIT#HANDSHAKE' });

export const replayPageKey = (agentId: string, jobId: string, page: number): Key => ({
  PK: `AGENT#${agentId}`,
  SK: `REPLAY#${jobId}#${String(page).padStart(6, '0')}`,
});

/** Keys of an agent's AWS destinations (lib/destinations): in the agent's partition, so its list is one Query. */
export const destinationKeys = {
  destination: (agentId: string, destinationId: string): Key => ({
    PK: `AGENT#${agentId}`,
    SK: `DEST#${destinationId}`,
  }),
  prefix: 'DEST#',
  agentPk: (agentId: string): string => `AGENT#${agentId}`,
  verifyRequest: (agentId: string, destinationId: string, atMs: number): Key => ({
    PK: `AGENT#${agentId}`,
    SK: `DESTVERIFY#${destinationId}#${atMs}`,
  }),
  registrationLimit: (userId: string): Key => ({ PK: `USER#${userId}`, SK: 'LIMIT#DESTINATION' }),
} as const;

/** Keys of the marketplace's lifecycle, stats and moderation rooms (lib/marketplace/{lifecycle,stats,moderation}). */
export const lifecycleKeys = {
  /** The publish gate's one item of verified publishers' names and slugs (lib/marketplace/templates/gate.ts). */
  protectedNames: (): Key => ({ PK: 'GATE#PROTECTED', SK: 'NAMES' }),
  /** GSI1 entry of a slug claim: an author's templates, newest first. */
  authoredIndex: (authorId: string, createdAt: string, templateId: string) => ({
    GSI1PK: `AUTHOR#${authorId}`,
    GSI1SK: `${createdAt}#${templateId}`,
  }),
  authoredIndexPk: (authorId: string): string => `AUTHOR#${authorId}`,
  installer: (templateId: string, workspaceId: string): Key => ({
    PK: `TPL#${templateId}`,
    SK: `INSTALLER#${workspaceId}`,
  }),
  installerPrefix: 'INSTALLER#',
  stats: (templateId: string, year: string, sortableVersion: string, shard: number): Key => ({
    PK: `TPL#${templateId}`,
    SK: `STATS#${year}#${sortableVersion}#${shard}`,
  }),
  statsYearPrefix: (year: string): string => `STATS#${year}#`,
  notice: (templateId: string, noticeId: string, page: number): Key => ({
    PK: `TPL#${templateId}`,
    SK: `NOTICE#${noticeId}#${String(page).padStart(6, '0')}`,
  }),
  noticeReceipt: (workspaceId: string, noticeId: string): Key => ({
    PK: `WS#${workspaceId}`,
    SK: `NOTICE#${noticeId}`,
  }),
  versionChangeLimit: (templateId: string): Key => ({ PK: `TPL#${templateId}`, SK: 'LIMIT#VERSIONS' }),
  visibilityLimit: (templateId: string): Key => ({ PK: `TPL#${templateId}`, SK: 'LIMIT#VISIBILITY' }),
  noticeGate: (templateId: string): Key => ({ PK: `TPL#${templateId}`, SK: 'NOTICEGATE' }),
  noticeDue: (templateId: string, type: string, version: string): Key => ({
    PK: `TPL#${templateId}`,
    SK: `NOTICEDUE#${type}#${version}`,
  }),
  noticeDuePrefix: 'NOTICEDUE#',
  eventAgents: (workspaceId: string): Key => ({ PK: `WS#${workspaceId}`, SK: 'EVENTAGENTS' }),
  report: (target: string, reporterId: string): Key => ({ PK: `REPORT#${target}`, SK: `BY#${reporterId}` }),
  reportTargetPk: (target: string): string => `REPORT#${target}`,
  /** What a report names: a template, or one reviewer's review of it. */
  reportTarget: (templateId: string, reviewerId?: string): string =>
    reviewerId === undefined ? `TPL#${templateId}` : `REV#${templateId}#${reviewerId}`,
  openReportsIndexPk: 'REPORTS#OPEN',
  /** GSI1 entry of an open report: every open report, newest first. Removed when it is closed. */
  openReportsIndex: (createdAt: string, reportId: string) => ({
    GSI1PK: 'REPORTS#OPEN',
    GSI1SK: `${createdAt}#${reportId}`,
  }),
  reportLimit: (userId: string): Key => ({ PK: `USER#${userId}`, SK: 'LIMIT#REPORT' }),
  moderationAction: (actionId: string): Key => ({ PK: `MODACTION#${actionId}`, SK: 'MODACTION' }),
  moderationLogPk: 'MODLOG',
  /** GSI1 entry of a moderation action: the audit trail, newest first. */
  moderationLogIndex: (createdAt: string, actionId: string) => ({
    GSI1PK: 'MODLOG',
    GSI1SK: `${createdAt}#${actionId}`,
  }),
} as const;

/** Strips the key attributes and index attributes so stored items never leak into responses. */
export function withoutKeys<T extends Record<string, unknown>>(
  item: T,
): Omit<T, 'PK' | 'SK' | 'GSI1PK' | 'GSI1SK' | 'entity'> {
  const { PK: _pk, SK: _sk, GSI1PK: _g1pk, GSI1SK: _g1sk, entity: _entity, ...rest } = item;
  return rest;
}
