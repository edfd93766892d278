import { TEMPORARY_PASSWORD_DAYS } from '../../identity/password-policy';
import type { MailCopy } from '../mail-copy';

// Spanish as a product team writes it to its users: tú, and the letter greeting with a colon.
export const es: MailCopy = {
  greeting: (name) => `Hola, ${name}:`,
  labels: { organization: 'Organización', email: 'Correo electrónico', signInUrl: 'Dirección de acceso' },
  colon: ': ',
  signInButton: 'Iniciar sesión',
  notExpected: 'Si no esperabas este correo, ponte en contacto con tu administrador.',
  automatic: 'Este mensaje se ha enviado automáticamente; las respuestas a esta dirección no se leen.',
  welcome: {
    subject: (realm) => `Tu cuenta de ${realm} ya está lista`,
    lead: (realm) =>
      `Un administrador de la organización ${realm} ha creado una cuenta para ti. Estos son los datos que necesitas para iniciar sesión:`,
    passwordLabel: 'Contraseña',
    withPassword: 'Puedes cambiar esta contraseña en la página de tu cuenta después de iniciar sesión.',
    temporaryPasswordLabel: 'Contraseña temporal',
    withTemporaryPassword:
      `Esta contraseña es temporal y vale durante ${TEMPORARY_PASSWORD_DAYS} días: abre la dirección de acceso y elige tu propia contraseña. Hasta entonces, no podrás iniciar sesión en otras aplicaciones.`,
    withoutPassword: 'Tu administrador te facilitará la contraseña por otra vía.',
  },
  reactivation: {
    subject: (realm) => `Tu cuenta de ${realm} vuelve a estar activa`,
    lead: (realm) =>
      `Hemos restablecido tu acceso a la organización ${realm}. Ya puedes volver a iniciar sesión con estos datos:`,
    passwordLabel: 'Nueva contraseña',
    withPassword: 'Te recomendamos cambiar esta contraseña después de iniciar sesión.',
    withoutPassword:
      'Tu contraseña no ha cambiado: inicia sesión con la que elegiste. Si nunca elegiste una, o no la recuerdas, pide a tu administrador que te asigne una nueva.',
  },
};
