/**
 * Everything that differs between stages, in one typed table. `cdk synth -c stage=<name>` picks a
 * row; the stack id is `TemplateMarketplace-<name>`, so stages never overwrite one another.
 * Account and region come from the environment (CDK_DEFAULT_ACCOUNT / CDK_DEFAULT_REGION, i.e.
 * the credentials `cdk deploy` runs with) unless the row pins them.
 */
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { allowedOrigins } from '../lib/http/cors.ts';

/** The functions a stage may reserve concurrency for. */
export type ReservedFunction = 'stream' | 'relay';

export interface StageConfig {
  name: string;
  /** Pin the stage to one account / region; unset = the deploying credentials' own. */
  account?: string;
  region?: string;
  /** Memory of a route function (MB) unless lib/routes.ts's memory table says otherwise. */
  defaultMemoryMb: number;
  logRetention: RetentionDays;
  /** API Gateway stage-wide throttle (requests per second, burst). */
  throttle: { rateLimit: number; burstLimit: number };
  /** Origins allowed by CORS; ['*'] allows any. */
  corsOrigins: string[];
  /** Alarm notifications go to an SNS topic; this address is subscribed to it when set. */
  alarmEmail?: string;
  /** Serve the API at the root of a custom domain (base path mapping ''), with an ACM certificate in the stack's region. */
  domain?: { name: string; certificateArn: string };
  /**
   * The most delivery batches each queue consumer (delivery, AWS destinations) runs at once: its SQS
   * event source's maximum concurrency (2 to 1,000). It caps the consumer, so a flood of events
   * cannot take the account's concurrency from the API, without reserving any: a consumer at its
   * cap leaves the messages in the queue instead of being throttled on them.
   */
  queueConsumerConcurrency: number;
  /**
   * What the stage reserves (docs/deployment.md, "Lambda concurrency"): each reservation caps its
   * function and guarantees it that share. The SSE stream (each client holds an execution for up to
   * 15 minutes, so streams could starve the API) and the relay (the table stream's consumer: no
   * event-source setting caps it, and every webhook waits on it). Lambda keeps 100 unreserved, so a
   * stage that reserves anything needs a concurrency quota of the sum + 100 (`npm run preflight`).
   */
  reservedConcurrency: Partial<Record<ReservedFunction, number>>;
  /** Refuse `cdk destroy` and stack deletion. */
  terminationProtection: boolean;
  /** Allows webhooks to http://localhost; never for a public stage. */
  developmentMode: boolean;
}

const base = {
  defaultMemoryMb: 512,
  throttle: { rateLimit: 200, burstLimit: 400 },
  corsOrigins: ['*'],
  developmentMode: false,
} satisfies Partial<StageConfig>;

export const STAGES: Record<string, StageConfig> = {
  dev: {
    ...base,
    name: 'dev',
    logRetention: RetentionDays.ONE_WEEK,
    throttle: { rateLimit: 50, burstLimit: 100 },
    queueConsumerConcurrency: 5,
    // Nothing: dev deploys in a new account, whose quota can be as low as 10.
    reservedConcurrency: {},
    terminationProtection: false,
  },
  staging: {
    ...base,
    name: 'staging',
    logRetention: RetentionDays.TWO_WEEKS,
    queueConsumerConcurrency: 10,
    // Nothing, as dev: staging lives in accounts whose quota nobody raised.
    reservedConcurrency: {},
    terminationProtection: false,
  },
  prod: {
    ...base,
    name: 'prod',
    logRetention: RetentionDays.THREE_MONTHS,
    queueConsumerConcurrency: 50,
    // 300 streams at once (docs/cost.md); quota needed: 410.
    reservedConcurrency: { stream: 300, relay: 10 },
    terminationProtection: true,
  },
};

/** Lambda keeps this much of an account's concurrency unreserved: no reservation may take it. */
export const UNRESERVED_CONCURRENCY_MINIMUM = 100;

/** What the stage reserves in all, and the account concurrency quota that needs (0: none needed). */
export function concurrencyNeeds(config: Pick<StageConfig, 'reservedConcurrency'>): {
  reserved: number;
  quotaNeeded: number;
} {
  const reserved = Object.values(config.reservedConcurrency).reduce((sum, n) => sum + (n ?? 0), 0);
  return { reserved, quotaNeeded: reserved === 0 ? 0 : reserved + UNRESERVED_CONCURRENCY_MINIMUM };
}

/** The stage a `cdk` command without `-c stage=…` gets: dev, so a bare deploy never reaches prod. */
export const DEFAULT_STAGE = 'dev';

export function stageNameOf(context: (key: string) => unknown): string {
  const value = context('stage');
  return value === undefined || value === null || value === '' ? DEFAULT_STAGE : String(value);
}

/** Names a stage may have: they end up in the stack id, the API stage and resource names. */
const STAGE_NAME = /^[a-z][a-z0-9-]{0,19}$/;

/**
 * The config of a stage by name, with overrides from CDK context (`-c alarmEmail=…`,
 * `-c domainName=… -c certificateArn=…`) so an operator can set them without editing code.
 */
export function stageConfig(name: string, context: (key: string) => unknown = () => undefined): StageConfig {
  if (!STAGE_NAME.test(name))
    throw new Error(`Stage name "${name}" must match ${STAGE_NAME} (lower-case letters, digits, dashes).`);
  const known = STAGES[name];
  if (!known)
    throw new Error(
      `Unknown stage "${name}". Known stages: ${Object.keys(STAGES).join(', ')} (infra/stage-config.ts).`,
    );
  const text = (key: string): string | undefined => {
    const value = context(key);
    return value === undefined || value === null || value === '' ? undefined : String(value);
  };
  const alarmEmail = text('alarmEmail') ?? known.alarmEmail;
  const domainName = text('domainName');
  const certificateArn = text('certificateArn');
  if ((domainName === undefined) !== (certificateArn === undefined))
    throw new Error('Set both -c domainName and -c certificateArn, or neither.');
  const domain = domainName && certificateArn ? { name: domainName, certificateArn } : known.domain;
  // `-c corsOrigins=https://app.example.com,https://admin.example.com`; default `*`.
  const cors = text('corsOrigins');
  return {
    ...known,
    ...(text('account') ? { account: text('account') } : {}),
    ...(text('region') ? { region: text('region') } : {}),
    ...(alarmEmail ? { alarmEmail } : {}),
    ...(domain ? { domain } : {}),
    ...(cors ? { corsOrigins: allowedOrigins({ CORS_ALLOWED_ORIGINS: cors }) } : {}),
    developmentMode: text('developmentMode') === 'true' || known.developmentMode,
  };
}

export const stackIdOf = (stage: string): string => `TemplateMarketplace-${stage}`;
