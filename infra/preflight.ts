/**
 * What `npm run preflight -- -c stage=<name>` decides (docs/deployment.md, "Before the first
 * deploy"): whether the account and region can take the stage, from what the account's own
 * read-only APIs answer, and what to do or request when not. Pure: scripts/preflight.ts reads the
 * account and prints these.
 */
import { concurrencyNeeds, type StageConfig, UNRESERVED_CONCURRENCY_MINIMUM } from './stage-config.ts';

/**
 * The bootstrap stack version the synthesized templates require (their `CheckBootstrapVersion`
 * rule refuses 1 to 5; infra/preflight.test.ts reads it from the template).
 */
export const REQUIRED_BOOTSTRAP_VERSION = 6;

/** The SSM parameter `cdk bootstrap` writes its version to (the default qualifier). */
export const BOOTSTRAP_VERSION_PARAMETER = '/cdk-bootstrap/hnb659fds/version';

/** Lambda's "Concurrent executions" quota, as Service Quotas names it. */
const CONCURRENCY_QUOTA_CODE = 'L-B99A9384';

/** What the account answered; `undefined` where it had nothing (no bootstrap parameter). */
export interface AccountFacts {
  /** The region the stage deploys to: pinned by the stage, else the credentials' own. */
  region: string | undefined;
  /** Lambda GetAccountSettings: AccountLimit. */
  concurrency: { limit: number; unreserved: number };
  /** The bootstrap version parameter's value. */
  bootstrapVersion: number | undefined;
}

export interface Finding {
  check: 'region' | 'concurrency' | 'bootstrap';
  status: 'ok' | 'warn' | 'fail';
  /** What was found, and for warn and fail what to do or request. */
  say: string;
}

const regionOfArn = (arn: string): string | undefined => arn.split(':')[3] || undefined;

export function checkRegion(config: StageConfig, region: string | undefined): Finding[] {
  if (!region)
    return [
      {
        check: 'region',
        status: 'fail',
        say: 'No region: set AWS_REGION (or a profile with a region), or pin the stage with -c region=<region>.',
      },
    ];
  const certificate = config.domain && regionOfArn(config.domain.certificateArn);
  if (config.domain && certificate !== region)
    return [
      {
        check: 'region',
        status: 'fail',
        say: `The custom domain's certificate is in ${certificate ?? 'no region'}, the stage deploys to ${region}: a regional API needs an ACM certificate in its own region.`,
      },
    ];
  return [{ check: 'region', status: 'ok', say: `Deploys to ${region}.` }];
}

export function checkConcurrency(config: StageConfig, facts: AccountFacts): Finding[] {
  const { reserved, quotaNeeded } = concurrencyNeeds(config);
  const { limit, unreserved } = facts.concurrency;
  const reservations = Object.entries(config.reservedConcurrency)
    .map(([fn, n]) => `${fn} ${n}`)
    .join(', ');
  if (reserved === 0)
    return [
      {
        check: 'concurrency',
        status: 'ok',
        say: `The ${config.name} stage reserves no concurrency: it deploys under any quota (this account's: ${limit}).`,
      },
    ];
  if (limit < quotaNeeded)
    return [
      {
        check: 'concurrency',
        status: 'fail',
        say:
          `The ${config.name} stage reserves ${reserved} concurrent executions (${reservations}) and Lambda keeps ${UNRESERVED_CONCURRENCY_MINIMUM} unreserved, ` +
          `so it needs a concurrency quota of at least ${quotaNeeded}; this account's is ${limit} in ${facts.region}. Request it (Service Quotas, AWS Lambda, "Concurrent executions"): ` +
          `aws service-quotas request-service-quota-increase --service-code lambda --quota-code ${CONCURRENCY_QUOTA_CODE} --desired-value ${quotaNeeded} --region ${facts.region}`,
      },
    ];
  // Other functions of the account may already hold reservations (or this stage's own, on an update).
  if (unreserved - reserved < UNRESERVED_CONCURRENCY_MINIMUM)
    return [
      {
        check: 'concurrency',
        status: 'warn',
        say:
          `The quota (${limit}) covers the ${reserved} the stage reserves, but only ${unreserved} are unreserved now: ` +
          `a first deploy fails unless other functions release ${UNRESERVED_CONCURRENCY_MINIMUM + reserved - unreserved} (an update of this stage already holds its own).`,
      },
    ];
  return [
    {
      check: 'concurrency',
      status: 'ok',
      say: `Reserves ${reserved} (${reservations}) of a quota of ${limit}; ${unreserved} unreserved now.`,
    },
  ];
}

export function checkBootstrap(facts: AccountFacts): Finding[] {
  const bootstrap = `npx cdk bootstrap aws://<account id>/${facts.region ?? '<region>'}`;
  if (facts.bootstrapVersion === undefined)
    return [
      {
        check: 'bootstrap',
        status: 'fail',
        say: `${facts.region} is not bootstrapped (no ${BOOTSTRAP_VERSION_PARAMETER}): run ${bootstrap} (aws sts get-caller-identity gives the account id).`,
      },
    ];
  if (facts.bootstrapVersion < REQUIRED_BOOTSTRAP_VERSION)
    return [
      {
        check: 'bootstrap',
        status: 'fail',
        say: `The bootstrap stack is version ${facts.bootstrapVersion}; the templates need ${REQUIRED_BOOTSTRAP_VERSION} or later: run ${bootstrap} again.`,
      },
    ];
  return [{ check: 'bootstrap', status: 'ok', say: `Bootstrapped (version ${facts.bootstrapVersion}).` }];
}

/** Every finding for the stage; any `fail` means the deploy would fail. */
export const preflightFindings = (config: StageConfig, facts: AccountFacts): Finding[] => [
  ...checkRegion(config, facts.region),
  ...checkConcurrency(config, facts),
  ...checkBootstrap(facts),
];
