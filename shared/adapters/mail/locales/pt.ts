import { TEMPORARY_PASSWORD_DAYS } from '../../identity/password-policy';
import type { MailCopy } from '../mail-copy';

// Brazilian Portuguese ("você"), the variant most product teams write `pt` in.
export const pt: MailCopy = {
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
    withTemporaryPassword:
      `Esta senha é temporária e vale por ${TEMPORARY_PASSWORD_DAYS} dias: abra o endereço de acesso e escolha sua própria senha. Até lá, você não poderá entrar em outros aplicativos.`,
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
};
