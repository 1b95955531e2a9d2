/**
 * A destination's ARN, read strictly: an Amazon SQS queue (`arn:aws:sqs:<region>:<account>:<name>`)
 * or an Amazon EventBridge event bus (`arn:aws:events:<region>:<account>:event-bus/<name>`), in a
 * region of the commercial partition that exists. Anything else is refused with the reason, and so
 * is an ARN in the service's own account (SERVICE_ACCOUNT_ID): the sender role must never be pointed
 * at the service's own queues, whatever a registrant writes (its IAM policy refuses that account too).
 *
 * Only `aws`: the sender role lives in the commercial partition, and IAM roles never cross
 * partitions, so an `aws-cn` or `aws-us-gov` queue could never be reached (every send would fail,
 * each one a request into an ARN the caller chose). The regions are the SDK's own partition data
 * (`partition()` of @aws-sdk/core, the table every SDK client resolves its endpoints with, already
 * in every bundle that carries the DynamoDB client), not a list kept here: a region AWS opens
 * arrives with an SDK update. Opt-in regions are regions like any other: the customer's account
 * has enabled the region if it holds a queue there.
 */
import { partition } from '@aws-sdk/core/client';

export type DestinationKind = 'sqs' | 'eventbridge';

export interface DestinationArn {
  kind: DestinationKind;
  arn: string;
  region: string;
  account: string;
  /** The queue's or the bus's name. */
  name: string;
}

/** The one partition destinations may be in: the sender role's. */
export const DESTINATION_PARTITION = 'aws';
/** A region's code (`eu-west-1`): the SDK's list also names each partition's global pseudo-region (`aws-global`). */
const REGION_CODE = /^[a-z]{2}(-[a-z]+)+-\d+$/;

/**
 * Whether `region` is a region of the commercial partition in the SDK's partition data. `partition()`
 * answers every string (by its regex, else the default partition); only a region the data lists
 * comes back with its `description`.
 */
export function isCommercialRegion(region: string): boolean {
  if (!REGION_CODE.test(region)) return false;
  const found = partition(region) as { name: string; description?: string };
  return found.name === DESTINATION_PARTITION && typeof found.description === 'string';
}
/** SQS: 1–80 of letters, digits, hyphens and underscores, `.fifo` for a FIFO queue. */
const QUEUE_NAME = /^[A-Za-z0-9_-]{1,75}(\.fifo)?$|^[A-Za-z0-9_-]{1,80}$/;
/** EventBridge: 1–256 of letters, digits and `.-_/`; partner buses start with `aws.partner/`, which cannot be written to. */
const BUS_NAME = /^[A-Za-z0-9._/-]{1,256}$/;

export type ArnCheck = { ok: true; value: DestinationArn } | { ok: false; reason: string };

export function parseDestinationArn(arn: string, serviceAccount: string | undefined): ArnCheck {
  const parts = arn.split(':');
  if (parts.length !== 6 || parts[0] !== 'arn')
    return refuse(
      'Expected arn:aws:sqs:<region>:<account>:<queue> or arn:aws:events:<region>:<account>:event-bus/<bus>.',
    );
  const [, arnPartition, service, region, account, resource] = parts as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (arnPartition !== DESTINATION_PARTITION)
    return refuse(
      `The partition "${arnPartition}" cannot be reached: destinations are in the commercial AWS partition (arn:aws:…), which this service delivers from.`,
    );
  if (!isCommercialRegion(region))
    return refuse(`"${region}" is not an AWS region (a region of the commercial partition, such as eu-west-1).`);
  if (!/^\d{12}$/.test(account)) return refuse('The account must be 12 digits.');
  if (serviceAccount !== undefined && account === serviceAccount)
    return refuse("That account is this service's own: name a queue or bus in your account.");
  if (service === 'sqs') {
    if (!QUEUE_NAME.test(resource)) return refuse('Not a valid SQS queue name.');
    return { ok: true, value: { kind: 'sqs', arn, region, account, name: resource } };
  }
  if (service === 'events') {
    const name = resource.startsWith('event-bus/') ? resource.slice('event-bus/'.length) : undefined;
    if (name === undefined || !BUS_NAME.test(name))
      return refuse('An EventBridge destination is an event bus: arn:…:events:<region>:<account>:event-bus/<name>.');
    if (name.startsWith('aws.')) return refuse('Partner and AWS event buses cannot be written to.');
    return { ok: true, value: { kind: 'eventbridge', arn, region, account, name } };
  }
  return refuse(`"${service}" destinations are not supported: sqs or events.`);
}

const refuse = (reason: string): ArnCheck => ({ ok: false, reason });

/** The queue URL an SQS ARN names (its region's DNS suffix from the same data); `endpoint` (the local emulator) replaces AWS's host. */
export function queueUrlOf(arn: DestinationArn, endpoint?: string): string {
  const host = endpoint ?? `https://sqs.${arn.region}.${partition(arn.region).dnsSuffix}`;
  return `${host.replace(/\/$/, '')}/${arn.account}/${arn.name}`;
}
