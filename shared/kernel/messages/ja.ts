import type { Messages } from './messages';

// Japanese in the polite register of a service notice: 様 after the name, 【…】 around the sender in the subject.
export const ja: Messages = {
  languageName: '日本語',
  mail: {
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
      withTemporaryPassword: (days) =>
        `このパスワードは仮パスワードです（有効期間 ${days} 日）。サインイン URL を開き、ご自身のパスワードを設定してください。設定が完了するまで、ほかのアプリケーションにはサインインできません。`,
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
  },
  pages: {
    errorTitle: 'エラー',
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
  },
};
