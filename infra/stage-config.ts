/**
 * Everything that differs between stages, in one typed table. `cdk synth -c stage=<name>` picks a
 * row; the stack id is `TemplateMarketplace-<name>`, so stages never overwrite one another.
 * Account and region come from the environment (CDK_DEFAULT_ACCOUNT / CDK_DEFAULT_REGION, i.e.
 * the credentials `cdk deploy` runs with) unless the row pins them.
 */
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { allowedOrigins } from '../lib/http/cors.ts';

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
   * Reserved concurrency of the functions that could otherwise starve the API: delivery (a flood of
   * events), relay (a write burst) and the SSE stream (each client holds one for 15 minutes). It
   * caps them and guarantees them their share; the account must keep 100 unreserved.
   */
  reservedConcurrency: { deliver: number; relay: number; stream: number };
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
    reservedConcurrency: { deliver: 5, relay: 2, stream: 20 },
    terminationProtection: false,
  },
  staging: {
    ...base,
    name: 'staging',
    logRetention: RetentionDays.TWO_WEEKS,
    reservedConcurrency: { deliver: 10, relay: 5, stream: 50 },
    terminationProtection: false,
  },
  prod: {
    ...base,
    name: 'prod',
    logRetention: RetentionDays.THREE_MONTHS,
    reservedConcurrency: { deliver: 50, relay: 10, stream: 300 },
    terminationProtection: true,
  },
};

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
