/** Request shapes of the contract routes (docs/api.md "Contracts"). Strict: unknown fields are a 400. */

import { CONTRACT_STATUSES as STATUSES } from '../core/contract-statuses.ts';
import { ID_PATTERN, isTemplateIdOrSlug } from '../core/ids.ts';
import { VERSION_PATTERN } from '../marketplace/templates/version.ts';
import * as z from '../zod.ts';
import type { ContractStatus } from './transitions.ts';

export const MAX_AMOUNT_CENTS = 1_000_000_000_000;

export const createContractBody = z.strictObject({
  // The template's UUID or its slug, as every template route takes; the contract records the UUID.
  template_id: z.string().check(z.refine(isTemplateIdOrSlug, 'Expected a template id (UUID) or slug.')),
  variables: z.record(z.string(), z.unknown()),
  amount_cents: z
    .int('Expected an integer number of cents.')
    .check(z.minimum(1, 'At least 1 cent.'), z.maximum(MAX_AMOUNT_CENTS, 'At most 10^12 cents.')),
  agent_id: z.string().check(z.minLength(1)),
  seller_agent_id: z.optional(z.string().check(z.minLength(1))),
  // Unnamed: the version the caller's workspace installed, or the current one (docs/marketplace.md, "Pinned installs").
  template_version: z.optional(z.string().check(z.regex(VERSION_PATTERN, 'Must be MAJOR.MINOR.PATCH, e.g. 1.0.0.'))),
});
export type CreateContractInput = z.output<typeof createContractBody>;

export const contractParams = z.strictObject({ id: z.string().check(z.regex(ID_PATTERN.ctr)) });

/**
 * Bound on a contract's variables and filled-in checks as JSON: placeholders copy variable values,
 * so a long value used several times could otherwise outgrow DynamoDB's 400 KB item.
 */
export const MAX_CONTRACT_BYTES = 128 * 1024;

/** Results travel in the contract item and in every party's event (and webhook body): kept small. */
export const MAX_RESULTS_BYTES = 16 * 1024;

export const verificationBody = z.strictObject({
  passed: z.boolean(),
  results: z.optional(
    z
      .record(z.string(), z.unknown())
      .check(
        z.refine(
          (r) => Buffer.byteLength(JSON.stringify(r)) <= MAX_RESULTS_BYTES,
          `At most ${MAX_RESULTS_BYTES} bytes as JSON.`,
        ),
      ),
  ),
});
export type VerificationInput = z.output<typeof verificationBody>;

/** One list with the events' (lib/core/contract-statuses.ts). */
export const CONTRACT_STATUSES = STATUSES satisfies readonly ContractStatus[];
// Fails to compile when lib/contracts gains a status this list lacks (a type only: no byte in a bundle).
type Exhaustive<Missing extends never> = Missing;
export type EveryContractStatusListed = Exhaustive<Exclude<ContractStatus, (typeof CONTRACT_STATUSES)[number]>>;

/** GET /contracts: the caller's contracts, newest first; `agent_id` must be one of the caller's agents. */
export const listContractsQuery = z.strictObject({
  status: z.optional(z.enum(CONTRACT_STATUSES)),
  agent_id: z.optional(z.string().check(z.regex(ID_PATTERN.agt, 'Expected an agent id (agt_…).'))),
  limit: z._default(z.queryInteger(1, 100), 20),
  cursor: z.optional(z.string().check(z.regex(ID_PATTERN.ctr, 'Expected a next_cursor.'))),
});
export type ListContractsQuery = z.output<typeof listContractsQuery>;
