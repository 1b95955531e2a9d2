/**
 * The one import of zod for the service: `zod/mini` (the same validation core as full zod, a
 * function-per-check API that bundles to a small fraction of it) with its English messages loaded,
 * so every schema's error details read as they did with full zod. Import it as a namespace
 * (`import * as z from '…/zod.ts'`): esbuild then keeps only the checks a bundle uses.
 */
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

export * from 'zod/mini';
