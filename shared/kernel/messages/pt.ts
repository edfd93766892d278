import type { Messages } from './messages';

// Brazilian Portuguese ("você"), the variant most product teams write `pt` in.
export const pt: Messages = {
  languageName: 'Português',
  mail: {
    greeting: (name) => `Olá, ${name},`,
    labels: { organization: 'Organização', email: 'E-mail de acesso', signInUrl: 'Endereço de acesso' },
    colon: ': ',
    signInButton: 'Entrar',
    notExpected: 'Se você não esperava este e-mail, fale com o seu administrador.',
    automatic: 'Esta mensagem foi enviada automaticamente; as respostas a este endereço não são lidas.',
    welcome: {
      subject: (realm) => `Sua conta de ${realm} está pronta`,
      lead: (realm) =>
        `Um administrador da organização ${realm} criou uma conta para você. Confira os dados de que você precisa para entrar:`,
      passwordLabel: 'Senha',
      withPassword: 'Você pode trocar esta senha na página da sua conta depois de entrar.',
      temporaryPasswordLabel: 'Senha temporária',
      withTemporaryPassword: (days) =>
        `Esta senha é temporária e vale por ${days} dias: abra o endereço de acesso e escolha sua própria senha. Até lá, você não poderá entrar em outros aplicativos.`,
      withoutPassword: 'O seu administrador vai enviar a senha para você separadamente.',
    },
    reactivation: {
      subject: (realm) => `Sua conta de ${realm} foi reativada`,
      lead: (realm) => `Seu acesso à organização ${realm} foi restabelecido. Você já pode entrar novamente com estes dados:`,
      passwordLabel: 'Nova senha',
      withPassword: 'Recomendamos trocar esta senha depois de entrar.',
      withoutPassword:
        'Sua senha não mudou: entre com a senha que você escolheu. Se você nunca escolheu uma, ou não se lembra dela, peça ao seu administrador que defina uma nova.',
    },
  },
  pages: {
    errorTitle: 'Erro',
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
  },
};
