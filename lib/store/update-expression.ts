/**
 * Builds an UpdateExpression from plain objects, with every attribute name and value behind a
 * placeholder (reserved words such as `name` and `count` then need no thought).
 */
export interface UpdateParts {
  set?: Record<string, unknown>;
  add?: Record<string, number>;
  remove?: readonly string[];
}

export interface BuiltUpdate {
  UpdateExpression: string;
  ConditionExpression?: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/** `condition` may use `extra.names` / `extra.values` (DynamoDB refuses placeholders nobody uses). */
export function buildUpdate(
  parts: UpdateParts,
  extra: { condition?: string; names?: Record<string, string>; values?: Record<string, unknown> } = {},
): BuiltUpdate {
  const names: Record<string, string> = { ...extra.names };
  const values: Record<string, unknown> = { ...extra.values };
  let n = 0;
  const name = (attr: string) => {
    const placeholder = `#u${n++}`;
    names[placeholder] = attr;
    return placeholder;
  };
  const value = (v: unknown) => {
    const placeholder = `:u${n++}`;
    values[placeholder] = v;
    return placeholder;
  };
  const clauses: string[] = [];
  const set = Object.entries(parts.set ?? {}).filter(([, v]) => v !== undefined);
  if (set.length) clauses.push(`SET ${set.map(([k, v]) => `${name(k)} = ${value(v)}`).join(', ')}`);
  const add = Object.entries(parts.add ?? {});
  if (add.length) clauses.push(`ADD ${add.map(([k, v]) => `${name(k)} ${value(v)}`).join(', ')}`);
  if (parts.remove?.length) clauses.push(`REMOVE ${parts.remove.map(name).join(', ')}`);
  return {
    UpdateExpression: clauses.join(' '),
    ...(extra.condition ? { ConditionExpression: extra.condition } : {}),
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
  };
}
