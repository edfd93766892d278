import type * as View from './sign-in-page.view';
import { signInViews } from './sign-in-views';

/** The sign-in page (`sign-in-page.view.ts`), loaded with the flow's other pages on first use (`sign-in-views.ts`). */
export type { PageAt, PageProblem, SignInError, SignInView } from './sign-in-page.view';

export const renderSignInPage: typeof View.renderSignInPage = (...args) => signInViews().renderSignInPage(...args);
