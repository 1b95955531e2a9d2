/**
 * A template's variable vocabulary (docs/api.md "Marketplace", a template's `schema`): its checks,
 * the variables they may name, and how long a value may be. The template declares them; contracts
 * (lib/contracts/variables.ts) fill them in.
 */

/** A check of a template, whose `config` may hold `{{variable}}` placeholders. */
export interface TemplateCheck {
  id: string;
  type: string;
  description?: string;
  config: Record<string, unknown>;
}

export interface DeclaredVariable {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'url';
  required?: boolean;
  default?: unknown;
  enum?: string[];
}

export type Values = Record<string, unknown>;

/**
 * Longest text a `string` or `url` variable may take, in UTF-8 bytes. A value is copied into every
 * placeholder that names it; this bounds one copy, MAX_CONTRACT_BYTES bounds them all together.
 */
export const MAX_VARIABLE_VALUE_BYTES = 16 * 1024;
