import { config } from 'zod/mini';
import { en } from 'zod/v4/locales';

/**
 * zod's English issue messages ("Too big: expected string to have <=80 characters"), which reach API
 * clients in 422 `details`. `zod/mini` sets no locale of its own, so each module that builds or parses
 * schemas imports this one for its side effect; importing `en` by name bundles that locale alone.
 */
config(en());
