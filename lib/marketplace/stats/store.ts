/** The stats items of one template for the UTC years from `fromYear` to `toYear` (every version): one Query. */

import * as keys from '../../store/key-builders.ts';
import { lifecycleKeys } from '../../store/keys.ts';
import { queryAll } from '../../store/query-all.ts';

export const readStatsItems = (templateId: string, fromYear: string, toYear: string) =>
  queryAll({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': keys.template(templateId).PK,
      ':from': lifecycleKeys.statsYearPrefix(fromYear),
      // '~' sorts after every sortable version, so the last year's items are all in.
      ':to': `${lifecycleKeys.statsYearPrefix(toYear)}~`,
    },
  });
