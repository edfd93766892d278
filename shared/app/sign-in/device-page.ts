import { escapeHtml as e, type Language } from '../../adapters/mail/mail-terms';
import { accountCopies } from '../pages/account-copy';
import { formAlert } from '../pages/page-fields';
import { PAGE_STYLE } from '../pages/page-style';
import { SIGN_IN_PAGE_POLICY } from './sign-in-page';

/**
 * The device verification page (RFC 8628 §3.3): the form for the user code, the consent step once the
 * person signed in (which client asks, for what, approve or deny), and how it ended. Plain forms, no
 * script, the realm's other pages' look; every value escaped.
 */

/**
 * The sign-in pages' policy: no `form-action`, since the code's form answers a redirect to the
 * authorization endpoint, which may go on to the organization's identity provider.
 */
export const DEVICE_PAGE_POLICY = SIGN_IN_PAGE_POLICY;

export type DeviceCodeError = 'wrong-code' | 'too-many';
export type DeviceProblem = 'unknown-realm' | 'expired' | 'cross-site' | 'bad-parameter' | 'sign-in-failed';

export type DeviceView =
  | { kind: 'enter'; realm: string; action: string; userCode?: string; error?: DeviceCodeError }
  | { kind: 'consent'; realm: string; action: string; userCode: string; step: string; clientId: string; scope: string | undefined; email: string }
  | { kind: 'done'; approved: boolean }
  | { kind: 'problem'; problem: DeviceProblem; again?: string };

interface DeviceCopy {
  title: (realm: string) => string;
  lead: string;
  codeLabel: string;
  next: string;
  errors: Record<DeviceCodeError, string>;
  consentTitle: string;
  consentLead: (clientId: string) => string;
  signedInAs: string;
  codeShown: string;
  grants: string;
  scopes: { profile: string; openid: string; offline: string };
  warning: string;
  approve: string;
  deny: string;
  approvedTitle: string;
  approved: string;
  deniedTitle: string;
  denied: string;
  problemTitle: string;
  problems: Record<DeviceProblem, string>;
  startAgain: string;
}

const copies: Record<Language, DeviceCopy> = {
  en: {
    title: (realm) => `Sign in a device to ${realm}`,
    lead: 'Enter the code your device shows.',
    codeLabel: 'Code',
    next: 'Continue',
    errors: {
      'wrong-code': 'This code is not valid, or has expired. Check the code your device shows, or start again on the device.',
      'too-many': 'Too many wrong codes were entered. Wait a few minutes, then try again.',
    },
    consentTitle: 'Approve the sign-in of a device?',
    consentLead: (clientId) => `An application (client ${clientId}) on another device asks to sign in as you.`,
    signedInAs: 'You are',
    codeShown: 'Code on the device',
    grants: 'It will be able to:',
    scopes: {
      profile: 'use the API as you, with your name and e-mail',
      openid: 'know who you are (an ID token)',
      offline: 'stay signed in until you revoke it on your account page (an offline token)',
    },
    warning: 'Approve only if you started this on your own device just now and it shows this same code.',
    approve: 'Approve',
    deny: 'Deny',
    approvedTitle: 'Device signed in',
    approved: 'The device is now signed in. You can close this window.',
    deniedTitle: 'Sign-in denied',
    denied: 'The device was not signed in. You can close this window.',
    problemTitle: 'Device sign-in cannot continue',
    problems: {
      'unknown-realm': 'There is no organization by this name. Check the address the device shows.',
      expired: 'This device sign-in has expired or was already decided. Start again on the device.',
      'cross-site': 'The form was sent from another site. Open the address the device shows and try again.',
      'bad-parameter': 'The request repeated a field or sent one that is too long. Open the address the device shows and try again.',
      'sign-in-failed': 'You were not signed in. Enter the code again to try once more.',
    },
    startAgain: 'Enter a code',
  },
  es: {
    title: (realm) => `Inicia sesión en un dispositivo en ${realm}`,
    lead: 'Introduce el código que muestra tu dispositivo.',
    codeLabel: 'Código',
    next: 'Continuar',
    errors: {
      'wrong-code': 'Este código no es válido o ha caducado. Comprueba el código que muestra tu dispositivo o vuelve a empezar en él.',
      'too-many': 'Se han introducido demasiados códigos incorrectos. Espera unos minutos y vuelve a intentarlo.',
    },
    consentTitle: '¿Aprobar el inicio de sesión de un dispositivo?',
    consentLead: (clientId) => `Una aplicación (cliente ${clientId}) en otro dispositivo pide iniciar sesión en tu nombre.`,
    signedInAs: 'Eres',
    codeShown: 'Código en el dispositivo',
    grants: 'Podrá:',
    scopes: {
      profile: 'usar la API en tu nombre, con tu nombre y correo electrónico',
      openid: 'saber quién eres (un token de ID)',
      offline: 'mantener la sesión iniciada hasta que la revoques en la página de tu cuenta (un token sin conexión)',
    },
    warning: 'Apruébalo solo si acabas de empezar esto en tu propio dispositivo y muestra este mismo código.',
    approve: 'Aprobar',
    deny: 'Denegar',
    approvedTitle: 'Dispositivo con sesión iniciada',
    approved: 'El dispositivo ya tiene la sesión iniciada. Puedes cerrar esta ventana.',
    deniedTitle: 'Inicio de sesión denegado',
    denied: 'El dispositivo no ha iniciado sesión. Puedes cerrar esta ventana.',
    problemTitle: 'No se puede continuar con el inicio de sesión del dispositivo',
    problems: {
      'unknown-realm': 'No existe ninguna organización con este nombre. Comprueba la dirección que muestra el dispositivo.',
      expired: 'Este inicio de sesión del dispositivo ha caducado o ya se decidió. Vuelve a empezar en el dispositivo.',
      'cross-site': 'El formulario se envió desde otro sitio. Abre la dirección que muestra el dispositivo e inténtalo de nuevo.',
      'bad-parameter': 'La solicitud repitió un campo o envió uno demasiado largo. Abre la dirección que muestra el dispositivo e inténtalo de nuevo.',
      'sign-in-failed': 'No se ha iniciado tu sesión. Introduce el código de nuevo para volver a intentarlo.',
    },
    startAgain: 'Introducir un código',
  },
  ja: {
    title: (realm) => `${realm} にデバイスをサインイン`,
    lead: 'デバイスに表示されているコードを入力してください。',
    codeLabel: 'コード',
    next: '続行',
    errors: {
      'wrong-code': 'このコードは無効か、有効期限が切れています。デバイスに表示されているコードを確認するか、デバイスでやり直してください。',
      'too-many': '誤ったコードが何度も入力されました。数分待ってから、もう一度試してください。',
    },
    consentTitle: 'デバイスのサインインを承認しますか?',
    consentLead: (clientId) => `別のデバイスのアプリケーション (クライアント ${clientId}) が、あなたとしてサインインすることを求めています。`,
    signedInAs: 'あなた',
    codeShown: 'デバイスのコード',
    grants: 'このアプリケーションは次のことができます:',
    scopes: {
      profile: 'あなたの名前とメール アドレスで、あなたとして API を使う',
      openid: 'あなたが誰かを知る (ID トークン)',
      offline: 'アカウント ページで取り消すまでサインインしたままでいる (オフライン トークン)',
    },
    warning: 'ご自身のデバイスで今これを始め、同じコードが表示されている場合にのみ承認してください。',
    approve: '承認',
    deny: '拒否',
    approvedTitle: 'デバイスがサインインしました',
    approved: 'デバイスはサインインしました。このウィンドウを閉じてかまいません。',
    deniedTitle: 'サインインを拒否しました',
    denied: 'デバイスはサインインしていません。このウィンドウを閉じてかまいません。',
    problemTitle: 'デバイスのサインインを続行できません',
    problems: {
      'unknown-realm': 'この名前の組織はありません。デバイスに表示されているアドレスを確認してください。',
      expired: 'このデバイスのサインインは有効期限が切れているか、すでに決定されています。デバイスでやり直してください。',
      'cross-site': 'フォームが別のサイトから送信されました。デバイスに表示されているアドレスを開いて、もう一度試してください。',
      'bad-parameter': 'リクエストに同じ項目が複数あるか、長すぎる項目がありました。デバイスに表示されているアドレスを開いて、もう一度試してください。',
      'sign-in-failed': 'サインインしていません。もう一度コードを入力してやり直してください。',
    },
    startAgain: 'コードを入力',
  },
  pt: {
    title: (realm) => `Conectar um dispositivo a ${realm}`,
    lead: 'Digite o código que seu dispositivo mostra.',
    codeLabel: 'Código',
    next: 'Continuar',
    errors: {
      'wrong-code': 'Este código não é válido ou expirou. Confira o código que seu dispositivo mostra, ou comece de novo nele.',
      'too-many': 'Foram digitados códigos errados demais. Aguarde alguns minutos e tente novamente.',
    },
    consentTitle: 'Aprovar a entrada de um dispositivo?',
    consentLead: (clientId) => `Um aplicativo (cliente ${clientId}) em outro dispositivo pede para entrar como você.`,
    signedInAs: 'Você é',
    codeShown: 'Código no dispositivo',
    grants: 'Ele poderá:',
    scopes: {
      profile: 'usar a API como você, com seu nome e e-mail',
      openid: 'saber quem você é (um token de ID)',
      offline: 'continuar conectado até você revogar na página da sua conta (um token offline)',
    },
    warning: 'Aprove somente se você acabou de iniciar isto no seu próprio dispositivo e ele mostra este mesmo código.',
    approve: 'Aprovar',
    deny: 'Negar',
    approvedTitle: 'Dispositivo conectado',
    approved: 'O dispositivo está conectado. Você pode fechar esta janela.',
    deniedTitle: 'Entrada negada',
    denied: 'O dispositivo não foi conectado. Você pode fechar esta janela.',
    problemTitle: 'Não é possível continuar a entrada do dispositivo',
    problems: {
      'unknown-realm': 'Não há organização com este nome. Verifique o endereço que o dispositivo mostra.',
      expired: 'Esta entrada do dispositivo expirou ou já foi decidida. Comece de novo no dispositivo.',
      'cross-site': 'O formulário foi enviado de outro site. Abra o endereço que o dispositivo mostra e tente novamente.',
      'bad-parameter': 'A solicitação repetiu um campo ou enviou um longo demais. Abra o endereço que o dispositivo mostra e tente novamente.',
      'sign-in-failed': 'Você não entrou. Digite o código novamente para tentar outra vez.',
    },
    startAgain: 'Digitar um código',
  },
};

/** The page of a view, in a language. */
export function renderDevicePage(view: DeviceView, language: Language): string {
  const copy = copies[language];
  const locale = `<input type="hidden" name="kc_locale" value="${e(language)}">`;
  let title: string;
  let body: string;
  let failed = false;
  switch (view.kind) {
    case 'enter': {
      title = copy.title(view.realm);
      const error = view.error ? copy.errors[view.error] : undefined;
      failed = error !== undefined;
      body = `<h1>${e(title)}</h1><p>${e(copy.lead)}</p>${formAlert(error)}
<form method="post" action="${e(view.action)}">
${locale}
<label for="user_code">${e(copy.codeLabel)}</label>
<input id="user_code" name="user_code" type="text" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" maxlength="32" required value="${e(view.userCode ?? '')}"${error ? ' aria-invalid="true" aria-describedby="form-error"' : ''}>
<button type="submit">${e(copy.next)}</button>
</form>`;
      break;
    }
    case 'consent': {
      title = copy.consentTitle;
      const asked = (view.scope ?? '').split(' ');
      const grants = [copy.scopes.profile, ...(asked.includes('openid') ? [copy.scopes.openid] : []), ...(asked.includes('offline_access') ? [copy.scopes.offline] : [])];
      const button = (value: 'approve' | 'deny', label: string, secondary: boolean) =>
        `<button type="submit" name="decision" value="${value}"${secondary ? ' class="secondary"' : ''}>${e(label)}</button>`;
      body = `<h1>${e(title)}</h1><p>${e(copy.consentLead(view.clientId))}</p>
<dl><dt>${e(copy.signedInAs)}</dt><dd>${e(view.email)}</dd><dt>${e(copy.codeShown)}</dt><dd>${e(view.userCode)}</dd></dl>
<p>${e(copy.grants)}</p><ul>${grants.map((grant) => `<li>${e(grant)}</li>`).join('')}</ul>
<p class="alert">${e(copy.warning)}</p>
<form method="post" action="${e(view.action)}">
${locale}
<input type="hidden" name="user_code" value="${e(view.userCode)}"><input type="hidden" name="step" value="${e(view.step)}">
${button('approve', copy.approve, false)} ${button('deny', copy.deny, true)}
</form>`;
      break;
    }
    case 'done':
      title = view.approved ? copy.approvedTitle : copy.deniedTitle;
      body = `<h1>${e(title)}</h1><p class="notice" role="status">${e(view.approved ? copy.approved : copy.denied)}</p>`;
      break;
    case 'problem':
      title = copy.problemTitle;
      failed = true;
      body = `<h1>${e(title)}</h1><p class="alert" role="alert">${e(copy.problems[view.problem])}</p>${view.again ? `<p><a href="${e(view.again)}">${e(copy.startAgain)}</a></p>` : ''}`;
      break;
  }
  const errorPrefix = failed ? `${e(accountCopies[language].errorTitle)}: ` : '';
  return `<!doctype html>
<html lang="${e(language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${errorPrefix}${e(title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main>${body}
</main>
</body>
</html>
`;
}
