import type { Language } from '../../adapters/mail/mail-terms';

/** Everything the account page says, in one language (the e-mails' four). */
export interface AccountCopy {
  /** The language's own name, for the language links. */
  languageName: string;
  title: string;
  signInTitle: (realm: string) => string;
  email: string;
  password: string;
  signIn: string;
  invalidCredentials: string;
  setPasswordTitle: string;
  setPasswordLead: string;
  changePasswordTitle: string;
  currentPassword: string;
  newPassword: string;
  confirmPassword: string;
  passwordRule: string;
  savePassword: string;
  passwordMismatch: string;
  passwordWeak: string;
  passwordReused: string;
  passwordExpired: string;
  /** Back from the organization's identity provider without a sign-in. */
  providerRefused: string;
  passwordSaved: string;
  /** Put before the page title when a form came back with an error (screen readers announce titles). */
  errorTitle: string;
  profileTitle: string;
  name: string;
  organization: string;
  role: string;
  signOut: string;
  signedOut: string;
  sessionEnded: string;
  offlineTokensTitle: string;
  offlineTokensLead: string;
  noOfflineTokens: string;
  moreOfflineTokens: string;
  created: string;
  lastUsed: string;
  revoke: string;
  offlineTokenRevoked: string;
  languages: string;
}

const en: AccountCopy = {
  languageName: 'English',
  title: 'Account',
  signInTitle: (realm) => `Sign in to ${realm}`,
  email: 'E-mail',
  password: 'Password',
  signIn: 'Sign in',
  invalidCredentials: 'Invalid e-mail or password.',
  setPasswordTitle: 'Choose your password',
  setPasswordLead: 'Your password is temporary. Choose a new password to finish setting up your account.',
  changePasswordTitle: 'Change your password',
  currentPassword: 'Current password',
  newPassword: 'New password',
  confirmPassword: 'Confirm the new password',
  passwordRule: 'At least 6 characters, with an upper-case letter, a lower-case letter, and a digit or a special character.',
  savePassword: 'Save password',
  passwordMismatch: 'The two new passwords do not match.',
  passwordWeak: 'The new password does not follow the password rule.',
  passwordReused: 'Choose a password other than the temporary one.',
  passwordExpired: 'Your temporary password has expired. Ask your administrator for a new one.',
  providerRefused: 'Your organization’s identity provider did not sign you in. Try again, or ask your administrator.',
  errorTitle: 'Error',
  passwordSaved: 'Your password has been saved.',
  profileTitle: 'Your account',
  name: 'Name',
  organization: 'Organization',
  role: 'Role',
  signOut: 'Sign out',
  signedOut: 'You have signed out.',
  sessionEnded: 'Your session has ended. Please sign in again.',
  offlineTokensTitle: 'Offline tokens',
  offlineTokensLead: 'Tools and scripts you signed in with offline access keep working with these until you revoke them or they go unused for too long.',
  noOfflineTokens: 'You have no offline tokens.',
  moreOfflineTokens: 'More offline tokens',
  created: 'Created',
  lastUsed: 'Last used',
  revoke: 'Revoke',
  offlineTokenRevoked: 'The offline token has been revoked.',
  languages: 'Language',
};

const es: AccountCopy = {
  languageName: 'Español',
  title: 'Cuenta',
  signInTitle: (realm) => `Inicia sesión en ${realm}`,
  email: 'Correo electrónico',
  password: 'Contraseña',
  signIn: 'Iniciar sesión',
  invalidCredentials: 'El correo electrónico o la contraseña no son válidos.',
  setPasswordTitle: 'Elige tu contraseña',
  setPasswordLead: 'Tu contraseña es temporal. Elige una nueva para terminar de configurar tu cuenta.',
  changePasswordTitle: 'Cambia tu contraseña',
  currentPassword: 'Contraseña actual',
  newPassword: 'Nueva contraseña',
  confirmPassword: 'Confirma la nueva contraseña',
  passwordRule: 'Al menos 6 caracteres, con una mayúscula, una minúscula y un dígito o un carácter especial.',
  savePassword: 'Guardar contraseña',
  passwordMismatch: 'Las dos contraseñas nuevas no coinciden.',
  passwordWeak: 'La nueva contraseña no cumple la regla de contraseñas.',
  passwordReused: 'Elige una contraseña distinta de la temporal.',
  passwordExpired: 'Tu contraseña temporal ha caducado. Pide una nueva a tu administrador.',
  providerRefused: 'El proveedor de identidad de tu organización no ha iniciado tu sesión. Inténtalo de nuevo o consulta a tu administrador.',
  errorTitle: 'Error',
  passwordSaved: 'Se ha guardado tu contraseña.',
  profileTitle: 'Tu cuenta',
  name: 'Nombre',
  organization: 'Organización',
  role: 'Rol',
  signOut: 'Cerrar sesión',
  signedOut: 'Has cerrado la sesión.',
  sessionEnded: 'Tu sesión ha terminado. Vuelve a iniciar sesión.',
  offlineTokensTitle: 'Tokens sin conexión',
  offlineTokensLead: 'Las herramientas y los scripts a los que diste acceso sin conexión siguen funcionando con estos tokens hasta que los revoques o pasen demasiado tiempo sin usarse.',
  noOfflineTokens: 'No tienes tokens sin conexión.',
  moreOfflineTokens: 'Más tokens sin conexión',
  created: 'Creado',
  lastUsed: 'Último uso',
  revoke: 'Revocar',
  offlineTokenRevoked: 'Se ha revocado el token sin conexión.',
  languages: 'Idioma',
};

const ja: AccountCopy = {
  languageName: '日本語',
  title: 'アカウント',
  signInTitle: (realm) => `${realm} にサインイン`,
  email: 'メールアドレス',
  password: 'パスワード',
  signIn: 'サインイン',
  invalidCredentials: 'メールアドレスまたはパスワードが正しくありません。',
  setPasswordTitle: 'パスワードの設定',
  setPasswordLead: '現在のパスワードは仮パスワードです。アカウントの設定を完了するため、新しいパスワードを設定してください。',
  changePasswordTitle: 'パスワードの変更',
  currentPassword: '現在のパスワード',
  newPassword: '新しいパスワード',
  confirmPassword: '新しいパスワード（確認）',
  passwordRule: '6 文字以上で、英大文字、英小文字、数字または記号をそれぞれ 1 文字以上含めてください。',
  savePassword: 'パスワードを保存',
  passwordMismatch: '2 つの新しいパスワードが一致しません。',
  passwordWeak: '新しいパスワードがパスワードの条件を満たしていません。',
  passwordReused: '仮パスワードとは異なるパスワードを設定してください。',
  passwordExpired: '仮パスワードの有効期限が切れています。管理者に新しいパスワードの発行を依頼してください。',
  providerRefused: '組織の ID プロバイダーでサインインできませんでした。もう一度試すか、管理者に問い合わせてください。',
  errorTitle: 'エラー',
  passwordSaved: 'パスワードを保存しました。',
  profileTitle: 'アカウント情報',
  name: '氏名',
  organization: '組織',
  role: 'ロール',
  signOut: 'サインアウト',
  signedOut: 'サインアウトしました。',
  sessionEnded: 'セッションが終了しました。もう一度サインインしてください。',
  offlineTokensTitle: 'オフライントークン',
  offlineTokensLead: 'オフラインアクセスでサインインしたツールやスクリプトは、取り消すか長期間使われなくなるまで、これらのトークンで動作し続けます。',
  noOfflineTokens: 'オフライントークンはありません。',
  moreOfflineTokens: 'その他のオフライントークン',
  created: '作成日時',
  lastUsed: '最終使用日時',
  revoke: '取り消す',
  offlineTokenRevoked: 'オフライントークンを取り消しました。',
  languages: '言語',
};

const pt: AccountCopy = {
  languageName: 'Português',
  title: 'Conta',
  signInTitle: (realm) => `Entrar em ${realm}`,
  email: 'E-mail',
  password: 'Senha',
  signIn: 'Entrar',
  invalidCredentials: 'E-mail ou senha inválidos.',
  setPasswordTitle: 'Escolha sua senha',
  setPasswordLead: 'Sua senha é temporária. Escolha uma nova senha para concluir a configuração da sua conta.',
  changePasswordTitle: 'Trocar a senha',
  currentPassword: 'Senha atual',
  newPassword: 'Nova senha',
  confirmPassword: 'Confirme a nova senha',
  passwordRule: 'Pelo menos 6 caracteres, com uma letra maiúscula, uma minúscula e um dígito ou caractere especial.',
  savePassword: 'Salvar senha',
  passwordMismatch: 'As duas novas senhas não são iguais.',
  passwordWeak: 'A nova senha não segue a regra de senhas.',
  passwordReused: 'Escolha uma senha diferente da temporária.',
  passwordExpired: 'Sua senha temporária expirou. Peça uma nova ao seu administrador.',
  providerRefused: 'O provedor de identidade da sua organização não concluiu a entrada. Tente novamente ou fale com seu administrador.',
  errorTitle: 'Erro',
  passwordSaved: 'Sua senha foi salva.',
  profileTitle: 'Sua conta',
  name: 'Nome',
  organization: 'Organização',
  role: 'Função',
  signOut: 'Sair',
  signedOut: 'Você saiu da conta.',
  sessionEnded: 'Sua sessão terminou. Entre novamente.',
  offlineTokensTitle: 'Tokens offline',
  offlineTokensLead: 'Ferramentas e scripts em que você entrou com acesso offline continuam funcionando com estes tokens até você revogá-los ou até ficarem sem uso por tempo demais.',
  noOfflineTokens: 'Você não tem tokens offline.',
  moreOfflineTokens: 'Mais tokens offline',
  created: 'Criado',
  lastUsed: 'Último uso',
  revoke: 'Revogar',
  offlineTokenRevoked: 'O token offline foi revogado.',
  languages: 'Idioma',
};

export const accountCopies: Record<Language, AccountCopy> = { en, es, ja, pt };
