import { randomBytes } from 'node:crypto';

/**
 * A subscription's signing secrets: made, rotated and chosen here, apart from signing.ts, so the
 * function that manages subscriptions does not carry the Standard Webhooks library that signs.
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

/**
 * The secrets after a rotation: the new one first; the one that signed until now keeps signing for
 * `overlapSeconds`; any older one is dropped.
 */
export function rotated(secrets: readonly SigningSecret[], fresh: string, now: Date, overlapSeconds: number): SigningSecret[] {
  const current = signingSecrets(secrets, now).find((secret) => secret.expiresAt === undefined);
  const expiresAt = new Date(now.getTime() + overlapSeconds * 1000).toISOString();
  return [{ value: fresh, createdAt: now.toISOString() }, ...(current ? [{ ...current, expiresAt }] : [])];
}
