import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks signatures (docs/api/events.md#signatures): `webhook-id`, `webhook-timestamp`
 * and `webhook-signature`, one `v1,<base64 HMAC-SHA256>` per secret that signs, space-separated, so
 * a receiver holding either secret of a rotation verifies.
 */

/** A subscription's signing secret; `expiresAt` set once another replaced it (it signs until then). */
export interface SigningSecret {
  value: string;
  createdAt: string;
  expiresAt?: string;
}

/** A new secret: `whsec_` and 32 random bytes in base64, the form the Standard Webhooks libraries take. */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** The secrets that sign at `now`, newest first. */
export const signingSecrets = (secrets: readonly SigningSecret[], now: Date): SigningSecret[] =>
  secrets.filter((secret) => secret.expiresAt === undefined || Date.parse(secret.expiresAt) > now.getTime());

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

/**
 * The secrets after a rotation: the new one first; the one that signed until now keeps signing for
 * `overlapSeconds`; any older one is dropped.
 */
export function rotated(secrets: readonly SigningSecret[], fresh: string, now: Date, overlapSeconds: number): SigningSecret[] {
  const current = signingSecrets(secrets, now).find((secret) => secret.expiresAt === undefined);
  const expiresAt = new Date(now.getTime() + overlapSeconds * 1000).toISOString();
  return [{ value: fresh, createdAt: now.toISOString() }, ...(current ? [{ ...current, expiresAt }] : [])];
}
