/**
 * The local runtime's configuration, from the settings (lib/core/environment.ts; docs/api.md "Local
 * runtime"). The admin and invoke commands read the same values, so they find the store `npm start` runs.
 */
import { LOCAL_DEFAULTS } from '../lib/core/settings.ts';
import { type LockOwner, runningRuntime } from './data-dir-lock.ts';
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

export interface StoreTarget {
  target: 'aws' | 'local';
  endpoint?: string;
  tableName: string;
  /** The `npm start` of DATA_DIR whose lock named the store (its queue too), when that is where the store came from. */
  runtime?: LockOwner;
}

/**
 * Points the AWS SDK at the store for the admin and invoke commands: a deployed table when
 * TABLE_NAME is set without DYNAMODB_ENDPOINT (AWS credentials from the usual chain), else
 * DYNAMODB_ENDPOINT, else the DynamoDB Local of the `npm start` running on DATA_DIR (its lock records
 * the port it was given, so LOCAL_DYNAMODB_PORT need not be repeated), else LOCAL_DYNAMODB_PORT.
 */
export function useStoreFromEnvironment(): StoreTarget {
  const { TABLE_NAME: tableName, DYNAMODB_ENDPOINT: dynamoEndpoint } = assertSettings();
  if (tableName && !dynamoEndpoint) return { target: 'aws', tableName };
  const config = localConfig();
  const runtime = config.externalDynamoEndpoint || process.env['LOCAL_DYNAMODB_PORT'] ? undefined : recorded(config);
  const endpoint =
    config.externalDynamoEndpoint ?? runtime?.dynamodb_endpoint ?? `http://127.0.0.1:${config.dynamoPort}`;
  const table = runtime?.table_name ?? config.tableName;
  process.env['DYNAMODB_ENDPOINT'] = endpoint;
  process.env['TABLE_NAME'] = table;
  return { target: 'local', endpoint, tableName: table, ...(runtime ? { runtime } : {}) };
}

function recorded(config: LocalConfig): LockOwner | undefined {
  if (config.dataDir === ':memory:') return undefined;
  const runtime = runningRuntime(config.dataDir);
  return runtime?.dynamodb_endpoint ? runtime : undefined;
}
