import { html, type Html } from '../../kernel/html/html';
import { renderPage } from '../../kernel/html/layout';
import type { Language } from '../../kernel/messages/languages';
import type { DeviceCodeError, DeviceProblem } from '../../kernel/messages/messages';
import { messagesOf } from '../../kernel/messages/messages-of';
import { formAlert, invalid } from '../pages/page-fields';

export type { DeviceCodeError, DeviceProblem } from '../../kernel/messages/messages';

/**
 * The device verification page (RFC 8628 §3.3): the form for the user code, the consent step once the
 * person signed in (which client asks, for what, approve or deny), and how it ended. Plain forms on the
 * one layout, served under its `PAGE_POLICY`.
 */

export type DeviceView =
  | { kind: 'enter'; realm: string; action: string; userCode?: string; error?: DeviceCodeError }
  | { kind: 'consent'; realm: string; action: string; userCode: string; step: string; clientId: string; scope: string | undefined; email: string }
  | { kind: 'done'; approved: boolean }
  | { kind: 'problem'; problem: DeviceProblem; again?: string };

/** The page of a view, in a language. */
export function renderDevicePage(view: DeviceView, language: Language): string {
  const pages = messagesOf(language).pages;
  const words = pages.device;
  const locale = html`<input type="hidden" name="kc_locale" value="${language}">`;
  const page = (title: string, body: Html, failed = false) =>
    renderPage({ language, title: failed ? `${pages.errorTitle}: ${title}` : title, body: html`<h1>${title}</h1>${body}` });
  switch (view.kind) {
    case 'enter': {
      const error = view.error ? words.errors[view.error] : undefined;
      return page(
        words.title(view.realm),
        html`<p>${words.lead}</p>${formAlert(error)}
<form method="post" action="${view.action}">
${locale}
<label for="user_code">${words.codeLabel}</label>
<input id="user_code" name="user_code" type="text" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" maxlength="32" required value="${view.userCode ?? ''}"${invalid(error !== undefined)}>
<button type="submit">${words.next}</button>
</form>`,
        error !== undefined,
      );
    }
    case 'consent': {
      const asked = (view.scope ?? '').split(' ');
      const grants = [words.scopes.profile, ...(asked.includes('openid') ? [words.scopes.openid] : []), ...(asked.includes('offline_access') ? [words.scopes.offline] : [])];
      return page(
        words.consentTitle,
        html`<p>${words.consentLead(view.clientId)}</p>
<dl><dt>${words.signedInAs}</dt><dd>${view.email}</dd><dt>${words.codeShown}</dt><dd>${view.userCode}</dd></dl>
<p>${words.grants}</p><ul>${grants.map((grant) => html`<li>${grant}</li>`)}</ul>
<p class="alert">${words.warning}</p>
<form method="post" action="${view.action}">
${locale}
<input type="hidden" name="user_code" value="${view.userCode}"><input type="hidden" name="step" value="${view.step}">
<button type="submit" name="decision" value="approve">${words.approve}</button> <button type="submit" name="decision" value="deny" class="secondary">${words.deny}</button>
</form>`,
      );
    }
    case 'done':
      return page(view.approved ? words.approvedTitle : words.deniedTitle, html`<p class="notice" role="status">${view.approved ? words.approved : words.denied}</p>`);
    case 'problem':
      return page(
        words.problemTitle,
        html`<p class="alert" role="alert">${words.problems[view.problem]}</p>${view.again ? html`<p><a href="${view.again}">${words.startAgain}</a></p>` : undefined}`,
        true,
      );
  }
}
