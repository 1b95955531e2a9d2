/**
 * The local runtime's configuration, from the settings (lib/core/environment.ts; docs/api.md "Local
 * runtime"). The admin and invoke commands read the same values, so they find the store `npm start` runs.
 */
import { LOCAL_DEFAULTS } from '../lib/core/settings.ts';
import { assertSettings } from './settings-check.ts';

export interface LocalConfig {
  port: number;
  /** Where the API listens: loopback unless HOST says otherwise (the demo key is public). */
  host: string;
  dataDir: string;
  dynamoPort: number;
  /** An existing DynamoDB to use instead of starting DynamoDB Local. */
  externalDynamoEndpoint: string | undefined;
  tableName: string;
}

export function localConfig(): LocalConfig {
  const s = assertSettings();
  return {
    port: s.PORT,
    host: s.HOST,
    dataDir: s.DATA_DIR,
    dynamoPort: s.LOCAL_DYNAMODB_PORT,
    externalDynamoEndpoint: s.DYNAMODB_ENDPOINT,
    tableName: s.TABLE_NAME ?? LOCAL_DEFAULTS.tableName,
  };
}

/**
 * Points the AWS SDK at the store for the admin and invoke commands: a deployed table when
 * TABLE_NAME is set without DYNAMODB_ENDPOINT (AWS credentials from the usual chain), else the
 * DynamoDB Local that `npm start` runs.
 */
export function useStoreFromEnvironment(): { target: 'aws' | 'local'; endpoint?: string; tableName: string } {
  const { TABLE_NAME: tableName, DYNAMODB_ENDPOINT: dynamoEndpoint } = assertSettings();
  if (tableName && !dynamoEndpoint) return { target: 'aws', tableName };
  const config = localConfig();
  const endpoint = config.externalDynamoEndpoint ?? `http://127.0.0.1:${config.dynamoPort}`;
  process.env['DYNAMODB_ENDPOINT'] = endpoint;
  process.env['TABLE_NAME'] = config.tableName;
  return { target: 'local', endpoint, tableName: config.tableName };
}
