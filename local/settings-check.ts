/**
 * The strict check of the environment (environment.ts), for a process about to start: every
 * variable a value it can take, or a SettingsError with one sentence naming it. The check is a zod
 * schema made from the one declaration, kind by kind. Local commands call it; function bundles do
 * not carry it (their environment is written by infra from typed settings).
 */

import { type Env, type Kind, type SettingName, setting } from '../lib/core/environment.ts';
import { ENVIRONMENT } from '../lib/core/environment-declaration.ts';
import * as z from '../lib/zod.ts';

export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

type Rule = (name: string) => (raw: string) => string | undefined;

const isPort = (raw: string) => {
  const value = Number(raw);
  return Number.isInteger(value) && value >= 0 && value <= 65535;
};
const port: Rule = (name) => (raw) =>
  isPort(raw) ? undefined : `${name} must be a port number (0–65535), not "${raw}".`;
const anything: Rule = () => () => undefined;
/** The kinds whose readers throw on a wrong value: their sentence is the refusal. */
const reader: Rule = (name) => (raw) => {
  try {
    setting(name as SettingName, { [name]: raw });
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
};

/** Per kind, the sentence that refuses a raw value (undefined: it is fine). */
const atLeastOne: Rule = (name) => (raw) =>
  /^[1-9]\d*$/.test(raw) ? undefined : `${name} must be a whole number, at least 1, not "${raw}".`;

const RULES: Record<Kind, Rule> = {
  text: anything,
  host: anything,
  dataDir: anything,
  origins: anything,
  url: (name) => (raw) =>
    URL.canParse(raw) ? undefined : `${name} must be a URL such as http://127.0.0.1:8000, not "${raw}".`,
  flag: (name) => (raw) =>
    raw === 'true' || raw === 'false' ? undefined : `${name} must be "true" or "false", not "${raw}".`,
  logLevel: (name) => (raw) =>
    ['debug', 'info', 'warn', 'silent'].includes(raw)
      ? undefined
      : `${name} must be debug, info, warn or silent, not "${raw}".`,
  apiPort: port,
  dynamoPort: port,
  retryDelays: reader,
  autoDisableSeconds: reader,
  noticeWindowSeconds: reader,
  replayPageItems: atLeastOne,
  inFlightLimit: atLeastOne,
};

const NAMES = Object.keys(ENVIRONMENT) as SettingName[];

/** The environment's schema: each declared variable optional, its raw text held to its kind's rule. */
const environmentSchema = z.object(
  Object.fromEntries(
    NAMES.map((name) => {
      const problem = RULES[ENVIRONMENT[name].kind](name);
      return [
        name,
        z.optional(
          z
            .string()
            .check(z.refine((raw) => problem(raw) === undefined, { error: (issue) => problem(issue.input as string) })),
        ),
      ];
    }),
  ),
);

export type CheckedSettings = { [N in SettingName]: ReturnType<typeof setting<N>> };

/** The settings, after checking every variable; the first wrong one is a SettingsError. */
export function assertSettings(env: Env = process.env): CheckedSettings {
  // An empty variable is an unset one, as the readers treat it.
  const given = Object.fromEntries(NAMES.filter((name) => env[name]).map((name) => [name, env[name]]));
  const checked = z.safeParse(environmentSchema, given);
  if (!checked.success) throw new SettingsError(checked.error.issues[0]!.message);
  return Object.fromEntries(NAMES.map((name) => [name, setting(name, env)])) as CheckedSettings;
}
