import type { Messages } from './messages';

// Spanish as a product team writes it to its users: tú, and the letter greeting with a colon.
export const es: Messages = {
  languageName: 'Español',
  mail: {
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
      withTemporaryPassword: (days) =>
        `Esta contraseña es temporal y vale durante ${days} días: abre la dirección de acceso y elige tu propia contraseña. Hasta entonces, no podrás iniciar sesión en otras aplicaciones.`,
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
  },
  pages: {
    errorTitle: 'Error',
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
  },
};
