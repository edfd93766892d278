import { escapeHtml as e, type Language } from '../../adapters/mail/mail-terms';
import { accountCopies } from '../pages/account-copy';
import { formAlert, FORM_ERROR_ID } from '../pages/page-fields';
import { PAGE_STYLE } from '../pages/page-style';

/**
 * The pages of a first link through an identity provider (Keycloak's first broker login): the form
 * that asks the user's current password once before the link is written, and the refusal of a
 * provider account other than the one the user is bound to. Served under the sign-in pages' policy
 * (`SIGN_IN_PAGE_POLICY`): a plain form, no script, every value escaped. The refusal never names the
 * e-mail the provider gave.
 */

export type LinkConfirmationError = 'invalid-credentials' | 'password-expired';

export type LinkConfirmationView =
  | { kind: 'confirm'; confirmationId: string; provider: string; email: string; error?: LinkConfirmationError }
  | { kind: 'refused'; provider: string };

/** Where the page is answered: the broker endpoint (after the provider) or the form's own address. */
export type LinkConfirmationAt = 'broker' | 'confirm';

interface LinkCopy {
  confirmTitle: string;
  confirmLead: (provider: string) => string;
  confirm: string;
  refusedTitle: string;
  refused: (provider: string) => string;
}

const copies: Record<Language, LinkCopy> = {
  en: {
    confirmTitle: 'Confirm it is you',
    confirmLead: (provider) => `This is your first sign-in with ${provider}. Enter the password you use here once, to link your account to it.`,
    confirm: 'Link and sign in',
    refusedTitle: 'Sign-in refused',
    refused: (provider) =>
      `Your user here is linked to another ${provider} account than the one you signed in with. Sign in with that account, or ask an ADMIN of your organization to remove the link.`,
  },
  es: {
    confirmTitle: 'Confirma que eres tú',
    confirmLead: (provider) => `Es tu primer inicio de sesión con ${provider}. Introduce una vez la contraseña que usas aquí para vincular tu cuenta.`,
    confirm: 'Vincular e iniciar sesión',
    refusedTitle: 'Inicio de sesión rechazado',
    refused: (provider) =>
      `Tu usuario aquí está vinculado a otra cuenta de ${provider} distinta de la que usaste. Inicia sesión con esa cuenta o pide a un ADMIN de tu organización que elimine el vínculo.`,
  },
  ja: {
    confirmTitle: 'ご本人確認',
    confirmLead: (provider) => `${provider} での初回のサインインです。アカウントをリンクするため、ここで使用しているパスワードを一度入力してください。`,
    confirm: 'リンクしてサインイン',
    refusedTitle: 'サインインが拒否されました',
    refused: (provider) =>
      `ここでのユーザーは、サインインに使用したものとは別の ${provider} アカウントにリンクされています。そのアカウントでサインインするか、組織の ADMIN にリンクの削除を依頼してください。`,
  },
  pt: {
    confirmTitle: 'Confirme que é você',
    confirmLead: (provider) => `Esta é sua primeira entrada com ${provider}. Digite uma vez a senha que você usa aqui para vincular sua conta.`,
    confirm: 'Vincular e entrar',
    refusedTitle: 'Entrada recusada',
    refused: (provider) =>
      `Seu usuário aqui está vinculado a outra conta de ${provider}, diferente da que você usou. Entre com essa conta ou peça a um ADMIN da sua organização que remova o vínculo.`,
  },
};

export function renderLinkConfirmationPage(view: LinkConfirmationView, language: Language, at: LinkConfirmationAt): string {
  const account = accountCopies[language];
  const copy = copies[language];
  let title: string;
  let body: string;
  let errorText: string | undefined;
  if (view.kind === 'confirm') {
    title = copy.confirmTitle;
    errorText = view.error === undefined ? undefined : view.error === 'invalid-credentials' ? account.invalidCredentials : account.passwordExpired;
    const action = at === 'broker' ? '../../login-actions/first-broker-login' : 'first-broker-login';
    const invalid = errorText ? ` aria-invalid="true" aria-describedby="${FORM_ERROR_ID}"` : '';
    body = `<h1>${e(title)}</h1><p>${e(copy.confirmLead(view.provider))}</p>${formAlert(errorText)}
<form method="post" action="${action}">
<input type="hidden" name="confirmation" value="${e(view.confirmationId)}"><input type="hidden" name="kc_locale" value="${language}">
<input type="email" name="username" autocomplete="username" value="${e(view.email)}" hidden readonly>
<label for="password">${e(account.password)}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus${invalid}>
<button type="submit">${e(copy.confirm)}</button>
</form>`;
  } else {
    title = copy.refusedTitle;
    body = `<h1>${e(title)}</h1><p class="alert" role="alert">${e(copy.refused(view.provider))}</p>`;
  }
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${errorText ? `${e(account.errorTitle)}: ` : ''}${e(title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main>${body}
</main>
</body>
</html>
`;
}
