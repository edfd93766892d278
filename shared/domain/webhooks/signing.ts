import { Webhook } from 'standardwebhooks';
import { signingSecrets, type SigningSecret } from './signing-secrets';

export type { SigningSecret } from './signing-secrets';

/**
 * Standard Webhooks signatures (docs/api/events.md#signatures): `webhook-id`, `webhook-timestamp`
 * and `webhook-signature`, one `v1,<base64 HMAC-SHA256>` per secret that signs, space-separated, so
 * a receiver holding either secret of a rotation verifies.
 */

/** The headers of one delivery attempt of `body`, signed with each secret that signs now. */
export function signedHeaders(messageId: string, body: string, secrets: readonly SigningSecret[], now = new Date()): Record<string, string> {
  const signatures = signingSecrets(secrets, now).map((secret) => new Webhook(secret.value).sign(messageId, now, body));
  return {
    'content-type': 'application/json',
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
