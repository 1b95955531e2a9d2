/** The fixed category list (docs/api.md): a category outside it is a 400 in bodies and filters alike. */
export const CATEGORIES = ['http', 'artifact', 'code', 'data', 'document', 'ai', 'other'] as const;
export type Category = (typeof CATEGORIES)[number];

export const VISIBILITIES = ['public', 'private', 'unlisted'] as const;
export type Visibility = (typeof VISIBILITIES)[number];
