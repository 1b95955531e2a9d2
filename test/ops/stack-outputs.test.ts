import { afterEach, describe, expect, it } from 'vitest';
import { synthApp } from '../../infra/test-synth.ts';
import {
  apiStackOf,
  decodeXmlText,
  describeStacksError,
  outputsOfDescribeStacks,
  readStackOutputs,
  SMOKE_OUTPUTS,
  STAGE_OUTPUTS,
  stageOutputs,
  stageVariables,
  stateStackOf,
} from '../../scripts/stack-outputs.ts';
import {
  describeStacksXml,
  type FakeCloudFormation,
  fakeCloudFormation,
  validationErrorXml,
} from '../support/fake-cloudformation.ts';

/**
 * How `npm run admin -- … --stage <stage>` finds a stage's settings: DescribeStacks answers read as
 * pure functions, the signed call against a CloudFormation stand-in on 127.0.0.1 (test/support/
 * fake-cloudformation.ts), and the outputs it reads held to the synthesized app, so a renamed output
 * or stack fails here and not at a platform team's first key.
 */
const credentials = async () => ({ accessKeyId: 'AKIDSTACKOUTPUTS', secretAccessKey: 'secret' });
let fake: FakeCloudFormation | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const devStacks = {
  'TemplateMarketplace-dev': {
    TableName: 'TemplateMarketplace-dev-Table1A2B3C',
    DeliveryQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/delivery',
    DeliveryDlqUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/delivery-dlq',
  },
  'TemplateMarketplace-dev-Api': {
    UsagePlanId: 'ab12cd',
    PushConnectionsEndpoint: 'https://y.execute-api.eu-west-1.amazonaws.com/dev',
    ApiUrl: 'https://x.execute-api.eu-west-1.amazonaws.com/dev/',
  },
};

describe('a DescribeStacks answer', () => {
  it('gives the outputs by key, text decoded, and nothing from the tags', () => {
    const xml = describeStacksXml('TemplateMarketplace-dev', { TableName: 't', Odd: 'a&b <c> "d"' });
    expect(outputsOfDescribeStacks(xml)).toEqual({ TableName: 't', Odd: 'a&b <c> "d"' });
  });

  it('decodes the named entities and numeric references, and leaves an unknown one as it is', () => {
    expect(decodeXmlText('&lt;&amp;&gt;&quot;&apos;&#65;&#x42;&nbsp;')).toBe('<&>"\'AB&nbsp;');
  });

  it('has no outputs when the stack has none, and refuses an answer about more than one stack', () => {
    const bare = describeStacksXml('S', {}).replace(/<Outputs>[\s\S]*<\/Outputs>/, '');
    expect(outputsOfDescribeStacks(bare)).toEqual({});
    const two = describeStacksXml('A', {}).replace('</Stacks>', '<member><StackName>B</StackName></member></Stacks>');
    expect(() => outputsOfDescribeStacks(two)).toThrow('described 2 stacks');
  });

  it("says a refusal with CloudFormation's code and message", () => {
    expect(describeStacksError(400, validationErrorXml('Stack with id X does not exist'))).toBe(
      'CloudFormation DescribeStacks answered 400 ValidationError: Stack with id X does not exist',
    );
    expect(describeStacksError(502, 'Bad gateway')).toBe('CloudFormation DescribeStacks answered 502');
  });
});

describe('reading a stage from CloudFormation (a stand-in on 127.0.0.1)', () => {
  it('asks DescribeStacks for each stack by name, signed for cloudformation in the region', async () => {
    fake = await fakeCloudFormation(devStacks);
    const outputs = await readStackOutputs('TemplateMarketplace-dev-Api', {
      region: 'eu-west-1',
      credentials,
      endpoint: fake.url,
    });
    expect(outputs).toEqual(devStacks['TemplateMarketplace-dev-Api']);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.form).toEqual({
      Action: 'DescribeStacks',
      Version: '2010-05-15',
      StackName: 'TemplateMarketplace-dev-Api',
    });
    expect(fake.requests[0]!.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDSTACKOUTPUTS\/\d{8}\/eu-west-1\/cloudformation\/aws4_request, /,
    );
  });

  it("gives the admin commands' variables from the stateful and API stacks", async () => {
    fake = await fakeCloudFormation(devStacks);
    expect(await stageVariables('dev', { region: 'eu-west-1', credentials, endpoint: fake.url })).toEqual({
      TABLE_NAME: 'TemplateMarketplace-dev-Table1A2B3C',
      USAGE_PLAN_ID: 'ab12cd',
      PUSH_CONNECTIONS_ENDPOINT: 'https://y.execute-api.eu-west-1.amazonaws.com/dev',
      DELIVERY_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/delivery-dlq',
      DELIVERY_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/delivery',
    });
    expect(fake.requests.map((r) => r.form['StackName']).sort()).toEqual([
      'TemplateMarketplace-dev',
      'TemplateMarketplace-dev-Api',
    ]);
  });

  it("gives the smoke run's URLs from the API stack", async () => {
    fake = await fakeCloudFormation({
      'TemplateMarketplace-dev-Api': {
        ApiUrl: 'https://x.execute-api.eu-west-1.amazonaws.com/dev/',
        PushUrl: 'wss://y.execute-api.eu-west-1.amazonaws.com/dev',
      },
    });
    expect(await stageOutputs('dev', SMOKE_OUTPUTS, { region: 'eu-west-1', credentials, endpoint: fake.url })).toEqual({
      url: 'https://x.execute-api.eu-west-1.amazonaws.com/dev/',
      pushUrl: 'wss://y.execute-api.eu-west-1.amazonaws.com/dev',
    });
  });

  it('names each output a stack lacks, and passes on CloudFormation’s refusal of an unknown stack', async () => {
    const { UsagePlanId: _, ...apiWithoutPlan } = devStacks['TemplateMarketplace-dev-Api'];
    fake = await fakeCloudFormation({ ...devStacks, 'TemplateMarketplace-dev-Api': apiWithoutPlan });
    const aws = { region: 'eu-west-1', credentials, endpoint: fake.url };
    await expect(stageVariables('dev', aws)).rejects.toThrow(
      'The stage "dev" has no output UsagePlanId of TemplateMarketplace-dev-Api: is it deployed?',
    );
    await expect(stageVariables('qa', aws)).rejects.toThrow(
      'CloudFormation DescribeStacks answered 400 ValidationError: Stack with id TemplateMarketplace-qa does not exist',
    );
  });
});

describe('the outputs it reads', () => {
  it('are outputs of the stacks the CDK app synthesizes for a stage, under those names', () => {
    const synth = synthApp({ stage: 'dev' });
    expect(synth.stacks.state.stackName).toBe(stateStackOf('dev'));
    expect(synth.stacks.api.stackName).toBe(apiStackOf('dev'));
    for (const { output, stack } of [...STAGE_OUTPUTS, ...SMOKE_OUTPUTS])
      expect(
        synth.outputs.some((o) => o.stack === stack('dev') && o.id === output),
        `${output} in ${stack('dev')}`,
      ).toBe(true);
  }, 120_000);
});
