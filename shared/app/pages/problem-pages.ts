import { html } from '../../kernel/html/html';
import { renderPage } from '../../kernel/html/layout';
import type { Language } from '../../kernel/messages/languages';
import type { PageProblem } from '../../kernel/messages/messages';
import { messagesOf } from '../../kernel/messages/messages-of';

/**
 * The realm's pages that only say something: why a sign-in or sign-out cannot go on, and that the
 * person is signed out. Through the one layout, served under its `PAGE_POLICY`.
 */

/** Why a request cannot go on; `signOut` for the end-session endpoint's, else the sign-in's. */
export function problemPage(problem: PageProblem, language: Language, options: { signOut?: boolean } = {}): string {
  const words = messagesOf(language).pages;
  const title = options.signOut ? words.signOutProblemTitle : words.problemTitle;
  return renderPage({
    language,
    title: `${words.errorTitle}: ${title}`,
    body: html`<h1>${title}</h1><p class="alert" role="alert">${words.problems[problem]}</p>`,
  });
}

/** A problem's words in English: the same, for an answer that is not a page (an OAuth error). */
export const problemText = (problem: PageProblem): string => messagesOf('en').pages.problems[problem];

/** The end-session endpoint's answer when the application gave no address to go back to. */
export function signedOutPage(language: Language): string {
  const words = messagesOf(language).pages;
  return renderPage({ language, title: words.signedOutTitle, body: html`<h1>${words.signedOutTitle}</h1><p>${words.signedOut}</p>` });
}
