import { TEMPORARY_PASSWORD_DAYS } from '../../identity/password-policy';
import type { MailCopy } from '../mail-copy';

// Japanese in the polite register of a service notice: 様 after the name, 【…】 around the sender in the subject.
export const ja: MailCopy = {
  greeting: (name) => `${name} 様`,
  labels: { organization: '組織', email: 'サインイン用メールアドレス', signInUrl: 'サインイン URL' },
  colon: '：',
  signInButton: 'サインイン',
  notExpected: 'このメールにお心当たりのない場合は、管理者にお問い合わせください。',
  automatic: 'このメールは送信専用のアドレスから自動送信しています。ご返信いただいてもお答えできません。',
  welcome: {
    subject: (realm) => `【${realm}】アカウント発行のお知らせ`,
    lead: (realm) => `${realm} の管理者により、アカウントが発行されました。サインインに必要な情報は以下のとおりです。`,
    passwordLabel: 'パスワード',
    withPassword: 'このパスワードは、サインイン後にアカウントページで変更できます。',
    temporaryPasswordLabel: '仮パスワード',
    withTemporaryPassword:
      `このパスワードは仮パスワードです（有効期間 ${TEMPORARY_PASSWORD_DAYS} 日）。サインイン URL を開き、ご自身のパスワードを設定してください。設定が完了するまで、ほかのアプリケーションにはサインインできません。`,
    withoutPassword: 'パスワードは管理者から別途お知らせします。',
  },
  reactivation: {
    subject: (realm) => `【${realm}】アカウント利用再開のお知らせ`,
    lead: (realm) => `${realm} でのアカウントの利用が再開されました。以下の情報で、再びサインインできます。`,
    passwordLabel: '新しいパスワード',
    withPassword: 'サインイン後、パスワードを変更することをおすすめします。',
    withoutPassword:
      'パスワードは変更されていません。以前に設定したパスワードでサインインしてください。パスワードを一度も設定していない場合やお忘れの場合は、管理者に新しいパスワードの設定を依頼してください。',
  },
};
