import { keys } from '../../adapters/store/keys';
import { deleteItem, getItem, getItemsByKey, keyId, putItem, transactWrite, updateItem, type TableWrite } from '../../adapters/store/table';

/**
 * The claims of e-mails in an organization: a user's e-mail is claimed (pending) before the identity
 * provider's account is made, completed with the user's record, released when the attempt fails
 * (docs/decisions/registration-claims-the-email-first.md).
 */

export interface EmailClaim {
  userUuid: string;
  state: 'PENDING' | 'DONE';
  claimedAt: string;
}

export async function claimEmail(orgUuid: string, email: string, userUuid: string, now: string): Promise<boolean> {
  return putItem(
    { ...keys.emailClaim(orgUuid, email), type: 'EMAIL', userUuid, state: 'PENDING', claimedAt: now },
    { ConditionExpression: 'attribute_not_exists(PK)' },
  );
}

export async function getEmailClaim(orgUuid: string, email: string): Promise<EmailClaim | undefined> {
  return getItem<EmailClaim>(keys.emailClaim(orgUuid, email));
}

/** The claims of these e-mails that exist, by e-mail as given (BatchGetItem, 100 a call). */
export async function getEmailClaims(orgUuid: string, emails: readonly string[]): Promise<Map<string, EmailClaim>> {
  const found = await getItemsByKey<EmailClaim>(emails.map((email) => keys.emailClaim(orgUuid, email)));
  return new Map(emails.flatMap((email) => {
    const claim = found.get(keyId(keys.emailClaim(orgUuid, email)));
    return claim ? [[email, claim]] : [];
  }));
}

/**
 * Claims several e-mails at once, each as `claimEmail` does, in one transaction (at most 100): all or
 * none; false when one of them is claimed already.
 */
export async function claimEmails(orgUuid: string, claims: readonly { email: string; userUuid: string }[], now: string): Promise<boolean> {
  const writes = claims.map(({ email, userUuid }): TableWrite => ({
    Put: { Item: { ...keys.emailClaim(orgUuid, email), type: 'EMAIL', userUuid, state: 'PENDING', claimedAt: now }, ConditionExpression: 'attribute_not_exists(PK)' },
  }));
  return (await transactWrite(writes)).length === 0;
}

/**
 * Takes over a claim that no user holds (abandoned by a crashed attempt, or left behind by an e-mail
 * change) for `userUuid`, as a fresh pending claim; false when someone else changed it first.
 */
export async function takeOverClaim(
  orgUuid: string,
  email: string,
  seen: EmailClaim,
  userUuid: string,
  now: string,
): Promise<boolean> {
  return updateItem({
    Key: keys.emailClaim(orgUuid, email),
    UpdateExpression: 'SET claimedAt = :now, userUuid = :user, #state = :pending',
    ConditionExpression: '#state = :seenState AND claimedAt = :seen AND userUuid = :seenUser',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: {
      ':now': now,
      ':user': userUuid,
      ':pending': 'PENDING',
      ':seen': seen.claimedAt,
      ':seenState': seen.state,
      ':seenUser': seen.userUuid,
    },
  });
}

export const completeClaimWrite = (orgUuid: string, email: string, userUuid: string): TableWrite => ({
  Update: {
    Key: keys.emailClaim(orgUuid, email),
    UpdateExpression: 'SET #state = :done',
    ConditionExpression: 'userUuid = :user',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':done': 'DONE', ':user': userUuid },
  },
});

export async function completeClaim(orgUuid: string, email: string, userUuid: string): Promise<void> {
  await updateItem(completeClaimWrite(orgUuid, email, userUuid).Update!);
}

/** Gives up a pending claim this attempt holds (after the identity provider failed, or the e-mail left). */
export async function releaseClaim(orgUuid: string, email: string, userUuid: string, state = 'PENDING'): Promise<void> {
  await deleteItem({
    Key: keys.emailClaim(orgUuid, email),
    ConditionExpression: 'userUuid = :user AND #state = :state',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':user': userUuid, ':state': state },
  });
}
