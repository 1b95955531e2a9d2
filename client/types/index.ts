export type * from './agents.ts';
export type * from './common.ts';
export type * from './contracts.ts';
export type * from './marketplace.ts';
export type * as Api from './openapi.ts';
