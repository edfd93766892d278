import { createHash } from 'node:crypto';
import { escapeHtml as e, type Language } from '../../adapters/mail/mail-terms';
import { accountCopies } from '../pages/account-copy';
import { PAGE_STYLE } from '../pages/page-style';
import { credentialFields, formAlert, newPasswordFields } from '../pages/page-fields';

/**
 * The authorization endpoint's pages: the sign-in form, the set-password step of a user whose password
 * is still the temporary one, and the error page of a request that cannot go back to its application;
 * and the end-session endpoint's signed-out page.
 * Plain forms, no script, the account page's look and words; every value escaped.
 */
export type SignInError = 'invalid-credentials' | 'password-expired' | 'password-mismatch' | 'password-weak' | 'password-reused';

export type SignInView =
  | { kind: 'sign-in'; realm: string; requestId: string; email?: string; error?: SignInError }
  | { kind: 'set-password'; realm: string; requestId: string; email: string; error?: SignInError }
  | { kind: 'error'; problem: PageProblem; realm?: string; signOut?: true }
  | { kind: 'signed-out' }
  /** Another site asked to sign the browser out without saying whose session (no ID token hint): the person confirms. */
  | { kind: 'confirm-sign-out'; realm: string; fields: Record<string, string> };

/** Why a request cannot go on, shown on a page because there is no safe address to send the person back to. */
export type PageProblem =
  | 'unknown-realm'
  | 'unknown-client'
  | 'bad-redirect'
  | 'expired'
  | 'cross-site'
  | 'provider-failed'
  | 'bad-parameter'
  | 'bad-id-token-hint'
  | 'logout-needs-client'
  | 'bad-post-logout-redirect';

/**
 * The pages' Content-Security-Policy: the account page's, but with no `form-action`, which browsers
 * apply to the redirects a form's answer makes (back to the application, or on to an identity provider).
 */
export const SIGN_IN_PAGE_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface SignInCopy {
  problemTitle: string;
  signOutProblemTitle: string;
  problems: Record<PageProblem, string>;
  signedOutTitle: string;
  signedOut: string;
  confirmSignOutTitle: (realm: string) => string;
  confirmSignOut: string;
}

const copies: Record<Language, SignInCopy> = {
  en: {
    problemTitle: 'Sign-in cannot continue',
    signOutProblemTitle: 'Sign-out cannot continue',
    problems: {
      'unknown-realm': 'There is no organization by this name. Check the address the application uses.',
      'unknown-client': 'The application that sent you here is not known (its client_id). Ask its developers to use the console client id.',
      'bad-redirect': 'The address the application asked to return to (its redirect_uri) is not allowed. Ask its developers to register it.',
      expired: 'This sign-in has expired or was already used. Go back to the application and sign in again.',
      'cross-site': 'The form was sent from another site. Go back to the application and sign in again.',
      'provider-failed': 'Your identity provider could not be reached. Try again in a moment, or ask your administrator.',
      'bad-parameter': 'The application sent a parameter more than once, or a state longer than 1,024 characters. Ask its developers to send each parameter once, within its length.',
      'bad-id-token-hint': "The application asked to sign you out with an ID token (id_token_hint) this organization did not issue to it. Ask its developers to send the ID token their sign-in received.",
      'logout-needs-client': 'The application asked to come back after signing you out (post_logout_redirect_uri) without saying which application it is. Ask its developers to send client_id or id_token_hint with it.',
      'bad-post-logout-redirect': 'The address the application asked to return to after signing you out (its post_logout_redirect_uri) is not allowed. Ask its developers to use one the deployment lists for sign-in, or a loopback address.',
    },
    signedOutTitle: 'You are signed out',
    signedOut: 'Your session has ended. Close this window, or go back to the application to sign in again.',
    confirmSignOutTitle: (realm) => `Sign out of ${realm}?`,
    confirmSignOut: 'An application asked to sign you out. Sign out if you asked for it; otherwise close this window.',
  },
  es: {
    problemTitle: 'No se puede continuar con el inicio de sesión',
    signOutProblemTitle: 'No se puede continuar con el cierre de sesión',
    problems: {
      'unknown-realm': 'No existe ninguna organización con este nombre. Comprueba la dirección que usa la aplicación.',
      'unknown-client': 'La aplicación que te ha enviado aquí no es conocida (su client_id). Pide a sus desarrolladores que usen el client id de la consola.',
      'bad-redirect': 'La dirección a la que la aplicación pidió volver (su redirect_uri) no está permitida. Pide a sus desarrolladores que la registren.',
      expired: 'Este inicio de sesión ha caducado o ya se usó. Vuelve a la aplicación e inicia sesión de nuevo.',
      'cross-site': 'El formulario se envió desde otro sitio. Vuelve a la aplicación e inicia sesión de nuevo.',
      'provider-failed': 'No se pudo contactar con tu proveedor de identidad. Inténtalo de nuevo en un momento o consulta a tu administrador.',
      'bad-parameter': 'La aplicación envió un parámetro más de una vez, o un state de más de 1.024 caracteres. Pide a sus desarrolladores que envíen cada parámetro una sola vez y dentro de su longitud.',
      'bad-id-token-hint': 'La aplicación pidió cerrar tu sesión con un token de ID (id_token_hint) que esta organización no le emitió. Pide a sus desarrolladores que envíen el token de ID que recibió su inicio de sesión.',
      'logout-needs-client': 'La aplicación pidió volver tras cerrar tu sesión (post_logout_redirect_uri) sin decir qué aplicación es. Pide a sus desarrolladores que envíen también client_id o id_token_hint.',
      'bad-post-logout-redirect': 'La dirección a la que la aplicación pidió volver tras cerrar tu sesión (su post_logout_redirect_uri) no está permitida. Pide a sus desarrolladores que usen una de las que la instalación admite para iniciar sesión, o una dirección de loopback.',
    },
    signedOutTitle: 'Has cerrado la sesión',
    signedOut: 'Tu sesión ha terminado. Cierra esta ventana o vuelve a la aplicación para iniciar sesión de nuevo.',
    confirmSignOutTitle: (realm) => `¿Cerrar la sesión en ${realm}?`,
    confirmSignOut: 'Una aplicación pidió cerrar tu sesión. Ciérrala si lo pediste tú; si no, cierra esta ventana.',
  },
  ja: {
    problemTitle: 'サインインを続行できません',
    signOutProblemTitle: 'サインアウトを続行できません',
    problems: {
      'unknown-realm': 'この名前の組織はありません。アプリケーションが使用しているアドレスを確認してください。',
      'unknown-client': 'このページに移動させたアプリケーション (client_id) は登録されていません。コンソールのクライアント ID を使うよう開発者に依頼してください。',
      'bad-redirect': 'アプリケーションが指定した戻り先 (redirect_uri) は許可されていません。登録するよう開発者に依頼してください。',
      expired: 'このサインインは有効期限が切れているか、すでに使用されています。アプリケーションに戻って、もう一度サインインしてください。',
      'cross-site': 'フォームが別のサイトから送信されました。アプリケーションに戻って、もう一度サインインしてください。',
      'provider-failed': 'ID プロバイダーに接続できませんでした。しばらくしてからもう一度試すか、管理者に問い合わせてください。',
      'bad-parameter': 'アプリケーションが同じパラメーターを複数回、または 1,024 文字を超える state を送信しました。各パラメーターを 1 回だけ、長さの範囲内で送るよう開発者に依頼してください。',
      'bad-id-token-hint': 'アプリケーションが、この組織がそのアプリケーションに発行していない ID トークン (id_token_hint) でサインアウトを要求しました。サインインで受け取った ID トークンを送るよう開発者に依頼してください。',
      'logout-needs-client': 'アプリケーションが自身を示さずにサインアウト後の戻り先 (post_logout_redirect_uri) を指定しました。client_id または id_token_hint も送るよう開発者に依頼してください。',
      'bad-post-logout-redirect': 'アプリケーションが指定したサインアウト後の戻り先 (post_logout_redirect_uri) は許可されていません。サインイン用に登録されたアドレスかループバック アドレスを使うよう開発者に依頼してください。',
    },
    signedOutTitle: 'サインアウトしました',
    signedOut: 'セッションは終了しました。このウィンドウを閉じるか、アプリケーションに戻ってもう一度サインインしてください。',
    confirmSignOutTitle: (realm) => `${realm} からサインアウトしますか?`,
    confirmSignOut: 'アプリケーションがサインアウトを要求しました。ご自身で要求した場合はサインアウトしてください。そうでなければ、このウィンドウを閉じてください。',
  },
  pt: {
    problemTitle: 'Não é possível continuar a entrada',
    signOutProblemTitle: 'Não é possível continuar a saída',
    problems: {
      'unknown-realm': 'Não há organização com este nome. Verifique o endereço que o aplicativo usa.',
      'unknown-client': 'O aplicativo que enviou você até aqui não é conhecido (seu client_id). Peça aos desenvolvedores que usem o client id do console.',
      'bad-redirect': 'O endereço para o qual o aplicativo pediu para voltar (seu redirect_uri) não é permitido. Peça aos desenvolvedores que o registrem.',
      expired: 'Esta entrada expirou ou já foi usada. Volte ao aplicativo e entre novamente.',
      'cross-site': 'O formulário foi enviado de outro site. Volte ao aplicativo e entre novamente.',
      'provider-failed': 'Não foi possível contatar seu provedor de identidade. Tente novamente em instantes ou fale com seu administrador.',
      'bad-parameter': 'O aplicativo enviou um parâmetro mais de uma vez, ou um state com mais de 1.024 caracteres. Peça aos desenvolvedores que enviem cada parâmetro uma só vez e dentro do tamanho.',
      'bad-id-token-hint': 'O aplicativo pediu para encerrar sua sessão com um token de ID (id_token_hint) que esta organização não emitiu para ele. Peça aos desenvolvedores que enviem o token de ID que a entrada deles recebeu.',
      'logout-needs-client': 'O aplicativo pediu para voltar após encerrar sua sessão (post_logout_redirect_uri) sem dizer qual aplicativo é. Peça aos desenvolvedores que enviem também client_id ou id_token_hint.',
      'bad-post-logout-redirect': 'O endereço para o qual o aplicativo pediu para voltar após encerrar sua sessão (seu post_logout_redirect_uri) não é permitido. Peça aos desenvolvedores que usem um dos que a instalação aceita para a entrada, ou um endereço de loopback.',
    },
    signedOutTitle: 'Você saiu',
    signedOut: 'Sua sessão terminou. Feche esta janela ou volte ao aplicativo para entrar novamente.',
    confirmSignOutTitle: (realm) => `Sair de ${realm}?`,
    confirmSignOut: 'Um aplicativo pediu para encerrar sua sessão. Saia se foi você quem pediu; caso contrário, feche esta janela.',
  },
};

/** A problem's text in English: the same words, for an answer that is not a page (an OAuth error). */
export const problemText = (problem: PageProblem): string => copies.en.problems[problem];

/** The form's address, relative to the page (`…/protocol/openid-connect/auth` or `…/login-actions/authenticate`). */
export type PageAt = 'authorize' | 'authenticate';

export function renderSignInPage(view: SignInView, language: Language, at: PageAt): string {
  const copy = accountCopies[language];
  const own = copies[language];
  const action = at === 'authorize' ? '../../login-actions/authenticate' : 'authenticate';
  const error = view.kind === 'sign-in' || view.kind === 'set-password' ? view.error : undefined;
  const errorText = error && fieldErrors(copy)[error];
  const alert = formAlert(errorText);
  const hidden = (requestId: string) => `<input type="hidden" name="request" value="${e(requestId)}"><input type="hidden" name="kc_locale" value="${language}">`;
  let title: string;
  let body: string;
  switch (view.kind) {
    case 'sign-in':
      title = copy.signInTitle(view.realm);
      body = `<h1>${e(title)}</h1>${alert}
<form method="post" action="${action}">
${hidden(view.requestId)}
${credentialFields(copy, view.email, error)}
<button type="submit">${e(copy.signIn)}</button>
</form>`;
      break;
    case 'set-password':
      title = copy.setPasswordTitle;
      body = `<h1>${e(title)}</h1><p>${e(copy.setPasswordLead)}</p>${alert}
<form method="post" action="${action}">
${hidden(view.requestId)}
<input type="email" name="username" autocomplete="username" value="${e(view.email)}" hidden readonly>${newPasswordFields(copy, error)}
<button type="submit">${e(copy.savePassword)}</button>
</form>`;
      break;
    case 'error':
      title = view.signOut ? own.signOutProblemTitle : own.problemTitle;
      body = `<h1>${e(title)}</h1><p class="alert" role="alert">${e(own.problems[view.problem])}</p>`;
      break;
    case 'signed-out':
      title = own.signedOutTitle;
      body = `<h1>${e(title)}</h1><p>${e(own.signedOut)}</p>`;
      break;
    case 'confirm-sign-out': {
      title = own.confirmSignOutTitle(view.realm);
      // Posted to the same address (`…/protocol/openid-connect/logout`) from this page: a request of this site.
      const hidden = Object.entries(view.fields).map(([name, value]) => `<input type="hidden" name="${e(name)}" value="${e(value)}">`).join('\n');
      body = `<h1>${e(title)}</h1><p>${e(own.confirmSignOut)}</p>
<form method="post" action="logout">
${hidden}
<button type="submit">${e(copy.signOut)}</button>
</form>`;
      break;
    }
  }
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${errorText ? `${e(copy.errorTitle)}: ` : ''}${e(title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main>${body}
</main>
</body>
</html>
`;
}

const fieldErrors = (copy: (typeof accountCopies)[Language]): Record<SignInError, string> => ({
  'invalid-credentials': copy.invalidCredentials,
  'password-expired': copy.passwordExpired,
  'password-mismatch': copy.passwordMismatch,
  'password-weak': copy.passwordWeak,
  'password-reused': copy.passwordReused,
});
