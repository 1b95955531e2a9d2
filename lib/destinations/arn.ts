/**
 * A destination's ARN, read strictly: an Amazon SQS queue (`arn:aws:sqs:<region>:<account>:<name>`)
 * or an Amazon EventBridge event bus (`arn:aws:events:<region>:<account>:event-bus/<name>`), in a
 * commercial, GovCloud or China partition. Anything else is refused with the reason, and so is an ARN
 * in the service's own account (SERVICE_ACCOUNT_ID): the sender role must never be pointed at the
 * service's own queues, whatever a registrant writes (its IAM policy refuses that account too).
 */

export type DestinationKind = 'sqs' | 'eventbridge';

export interface DestinationArn {
  kind: DestinationKind;
  arn: string;
  partition: string;
  region: string;
  account: string;
  /** The queue's or the bus's name. */
  name: string;
}

const PARTITIONS: Record<string, RegExp> = {
  aws: /^(af|ap|ca|eu|il|me|mx|sa|us)-[a-z]+-\d$/,
  'aws-us-gov': /^us-gov-[a-z]+-\d$/,
  'aws-cn': /^cn-[a-z]+-\d$/,
};
/** SQS: 1–80 of letters, digits, hyphens and underscores, `.fifo` for a FIFO queue. */
const QUEUE_NAME = /^[A-Za-z0-9_-]{1,75}(\.fifo)?$|^[A-Za-z0-9_-]{1,80}$/;
/** EventBridge: 1–256 of letters, digits and `.-_/`; partner buses start with `aws.partner/`, which cannot be written to. */
const BUS_NAME = /^[A-Za-z0-9._/-]{1,256}$/;

export type ArnCheck = { ok: true; value: DestinationArn } | { ok: false; reason: string };

export function parseDestinationArn(arn: string, serviceAccount: string | undefined): ArnCheck {
  const parts = arn.split(':');
  if (parts.length !== 6 || parts[0] !== 'arn')
    return refuse(
      'Expected arn:<partition>:sqs:<region>:<account>:<queue> or arn:<partition>:events:<region>:<account>:event-bus/<bus>.',
    );
  const [, partition, service, region, account, resource] = parts as [string, string, string, string, string, string];
  const regions = PARTITIONS[partition];
  if (!regions) return refuse(`Unknown partition "${partition}": aws, aws-us-gov or aws-cn.`);
  if (!regions.test(region)) return refuse(`"${region}" is not a region of the ${partition} partition.`);
  if (!/^\d{12}$/.test(account)) return refuse('The account must be 12 digits.');
  if (serviceAccount !== undefined && account === serviceAccount)
    return refuse("That account is this service's own: name a queue or bus in your account.");
  if (service === 'sqs') {
    if (!QUEUE_NAME.test(resource)) return refuse('Not a valid SQS queue name.');
    return { ok: true, value: { kind: 'sqs', arn, partition, region, account, name: resource } };
  }
  if (service === 'events') {
    const name = resource.startsWith('event-bus/') ? resource.slice('event-bus/'.length) : undefined;
    if (name === undefined || !BUS_NAME.test(name))
      return refuse('An EventBridge destination is an event bus: arn:…:events:<region>:<account>:event-bus/<name>.');
    if (name.startsWith('aws.')) return refuse('Partner and AWS event buses cannot be written to.');
    return { ok: true, value: { kind: 'eventbridge', arn, partition, region, account, name } };
  }
  return refuse(`"${service}" destinations are not supported: sqs or events.`);
}

const refuse = (reason: string): ArnCheck => ({ ok: false, reason });

/** The queue URL an SQS ARN names; `endpoint` (the local emulator) replaces AWS's host. */
export function queueUrlOf(arn: DestinationArn, endpoint?: string): string {
  const host =
    endpoint ?? `https://sqs.${arn.region}.${arn.partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com'}`;
  return `${host.replace(/\/$/, '')}/${arn.account}/${arn.name}`;
}
