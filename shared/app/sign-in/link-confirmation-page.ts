import type * as View from './link-confirmation-page.view';
import { signInViews } from './sign-in-views';

/** A first link's confirmation page (`link-confirmation-page.view.ts`), loaded with the flow's other pages on first use (`sign-in-views.ts`). */
export type { LinkConfirmationAt, LinkConfirmationError, LinkConfirmationView } from './link-confirmation-page.view';

export const renderLinkConfirmationPage: typeof View.renderLinkConfirmationPage = (...args) => signInViews().renderLinkConfirmationPage(...args);
