import { keys } from '../../adapters/store/keys';
import { deleteItem, getItem, putItem, updateItemReturning } from '../../adapters/store/table';

/**
 * A first link through an identity provider waiting for the user's password: what the provider
 * vouched for (its alias and the account's `sub`), the user it would link, the authorization request it
 * finishes, and the digest of the secret the browser holds in a cookie. Single use, minutes long.
 */
export interface LinkConfirmation {
  confirmationId: string;
  realm: string;
  orgUuid: string;
  /** The authorization request a confirmed link goes on to answer. */
  requestId: string;
  userUuid: string;
  alias: string;
  subject: string;
  /** SHA-256 (hex) of the secret in the browser's cookie: another browser cannot use the page. */
  browserSecretHash: string;
  /** Epoch seconds. */
  expiresAt: number;
  /** Wrong passwords given on this page so far. */
  attempts?: number;
}

export async function saveLinkConfirmation(confirmation: LinkConfirmation): Promise<void> {
  await putItem(
    { ...keys.linkConfirmation(confirmation.confirmationId), type: 'LINKCONFIRM', ttl: confirmation.expiresAt, ...confirmation },
    { ConditionExpression: 'attribute_not_exists(PK)' },
  );
}

/** The confirmation, while it has not expired (TTL deletes late). */
export async function getLinkConfirmation(confirmationId: string): Promise<LinkConfirmation | undefined> {
  const found = await getItem<LinkConfirmation>(keys.linkConfirmation(confirmationId), { consistent: true });
  return found && found.expiresAt > Math.floor(Date.now() / 1000) ? found : undefined;
}

/** Takes the confirmation once: false when another request took it first, or it is gone. */
export async function takeLinkConfirmation(confirmationId: string): Promise<boolean> {
  return deleteItem({ Key: keys.linkConfirmation(confirmationId), ConditionExpression: 'attribute_exists(PK)' });
}

/** Counts a wrong password given on the page; the count after it, or undefined when the confirmation is gone. */
export async function countLinkConfirmationFailure(confirmationId: string): Promise<number | undefined> {
  const counted = await updateItemReturning<LinkConfirmation>({
    Key: keys.linkConfirmation(confirmationId),
    UpdateExpression: 'ADD attempts :one',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':one': 1 },
  });
  return counted?.attempts;
}
