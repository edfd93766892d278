import { createRequire } from 'node:module';
import { lazy } from '../../kernel/lazy';
import type * as View from './account-page.view';

/**
 * The account page's views (`account-page.view.ts`), loaded by the first account page shown, from a
 * file of their own beside the auth function's bundle (infra/cloud/service-function.ts,
 * lazyProjectFiles): the token endpoint never loads them.
 */
export type { FieldError, Notice, OfflineToken, PageAt, Profile, View } from './account-page.view';

const views = lazy(
  () =>
    (typeof require === 'function'
      ? require('./lazy/account-views.cjs') // eslint-disable-line @typescript-eslint/no-require-imports -- a lazy load, on purpose
      : createRequire(import.meta.url)('./lazy/account-views.cjs')) as typeof View,
);

export const renderAccountPage: typeof View.renderAccountPage = (...args) => views().renderAccountPage(...args);
export const renderAccountReturnPage: typeof View.renderAccountReturnPage = (...args) => views().renderAccountReturnPage(...args);
