import { createRequire } from 'node:module';
import { lazy } from '../../kernel/lazy';
import type * as SignInPage from './sign-in-page.view';
import type * as DevicePage from './device-page.view';
import type * as LinkConfirmationPage from './link-confirmation-page.view';

/**
 * The sign-in flow's pages (sign-in, device verification, a first link's confirmation), loaded by the
 * first page the flow shows, from a file of their own beside the auth function's bundle
 * (infra/cloud/service-function.ts, lazyProjectFiles): the token endpoint, which most of the
 * function's requests are, never loads them. Under tsx, an ES module without `require`, the file is
 * required by the same relative path.
 */
export const signInViews = lazy(
  () =>
    (typeof require === 'function'
      ? require('./lazy/sign-in-views.cjs') // eslint-disable-line @typescript-eslint/no-require-imports -- a lazy load, on purpose
      : createRequire(import.meta.url)('./lazy/sign-in-views.cjs')) as typeof SignInPage & typeof DevicePage & typeof LinkConfirmationPage,
);
