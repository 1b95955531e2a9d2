/**
 * The context cdk.json gives every `cdk` command: the CDK feature flags (docs/deployment.md,
 * "Feature flags"). The test synths (infra/test-synth.ts) take it too, so they synthesize what
 * `cdk synth` does.
 */
import { readFileSync } from 'node:fs';

interface CdkJson {
  app: string;
  context: Record<string, unknown>;
}

export const CDK_JSON: CdkJson = JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8'));
