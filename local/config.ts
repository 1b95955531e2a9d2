/**
 * The local runtime's configuration, from the environment (docs/api.md "Local runtime").
 * The admin and invoke commands read the same values, so they find the store `npm start` runs.
 */
export const DEFAULT_TABLE_NAME = 'marketplace';

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

function portFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`${name} must be a port number (0–65535), not "${raw}".`);
  }
  return port;
}

export function localConfig(): LocalConfig {
  return {
    port: portFrom('PORT', 3000),
    host: process.env['HOST'] || '127.0.0.1',
    dataDir: process.env['DATA_DIR'] || '.data',
    dynamoPort: portFrom('LOCAL_DYNAMODB_PORT', 8000),
    externalDynamoEndpoint: process.env['DYNAMODB_ENDPOINT'] || undefined,
    tableName: process.env['TABLE_NAME'] || DEFAULT_TABLE_NAME,
  };
}

/**
 * Points the AWS SDK at the store for the admin and invoke commands: a deployed table when
 * TABLE_NAME is set without DYNAMODB_ENDPOINT (AWS credentials from the usual chain), else the
 * DynamoDB Local that `npm start` runs.
 */
export function useStoreFromEnvironment(): { target: 'aws' | 'local'; endpoint?: string; tableName: string } {
  const deployed = process.env['TABLE_NAME'] && !process.env['DYNAMODB_ENDPOINT'];
  if (deployed) return { target: 'aws', tableName: process.env['TABLE_NAME']! };
  const config = localConfig();
  const endpoint = config.externalDynamoEndpoint ?? `http://127.0.0.1:${config.dynamoPort}`;
  process.env['DYNAMODB_ENDPOINT'] = endpoint;
  process.env['TABLE_NAME'] = config.tableName;
  return { target: 'local', endpoint, tableName: config.tableName };
}
