import { randomUUID } from 'node:crypto';
import { pingEvent } from '../../shared/domain/audit/cloud-event';
import { keys } from '../../shared/adapters/store/keys';
import { updateItem } from '../../shared/adapters/store/table';
import { getUser } from '../../shared/domain/users/user.repository';
import { attemptDelivery } from '../../shared/app/webhooks/delivery-engine';
import { createWebhook, deleteWebhook, listDeliveryAttempts } from '../../shared/app/webhooks/webhook.service';
import { newDelivery } from '../../shared/domain/webhooks/delivery-schedule';
import { enqueueDelivery, getDelivery } from '../../shared/domain/webhooks/webhook.repository';
import { startReceiver } from '../support/webhook-receiver';
import { freshOrganization } from '../support/user-helpers';

/**
 * An attempt whose invocation runs out of time while its receiver has not answered (the local stack
 * stopping, or a Lambda timeout): it ends unrecorded, the delivery stays pending and taken until its
 * lease ends, then goes again with the same `webhook-id`. The delivery is written without a backlog
 * entry, so the stack's own sweep never sees it and only this file's attempts send it.
 */

test('time up while the receiver holds the attempt: nothing recorded, the delivery kept; sent again with the same webhook-id once its lease ends', async () => {
  const org = await freshOrganization();
  const scope = { orgUuid: org.orgUuid, caller: (await getUser(org.orgUuid, org.admin.uuid))!, isAdmin: true };
  let arrived: () => void = () => undefined;
  const timeUp = new Promise<void>((resolve) => (arrived = resolve));
  // The first request is held unanswered, and the invocation's time runs out as it arrives; the next is answered.
  const receiver = await startReceiver((index) => (index === 0 ? (arrived(), 'hang') : 204));
  try {
    const { webhook } = await createWebhook(scope, { url: receiver.url, eventTypes: ['user.updated'], enabled: true, excludeActors: [] });
    const due = newDelivery(webhook, pingEvent(org.orgUuid, webhook.id, randomUUID(), { uuid: null, email: null }, null), 'ping', randomUUID());
    await enqueueDelivery(due);

    expect(await attemptDelivery(due, timeUp)).toBeUndefined();

    expect(receiver.received).toHaveLength(1);
    const kept = await getDelivery(org.orgUuid, webhook.id, due.id);
    expect(kept).toMatchObject({ status: 'pending', attempts: 1 });
    expect(Date.parse(kept!.leaseUntil!)).toBeGreaterThan(Date.now());
    expect(await listDeliveryAttempts(scope, webhook.id, 10)).toEqual([]);

    // Its lease ended: the next attempt takes it.
    await updateItem({ Key: keys.webhookDelivery(org.orgUuid, webhook.id, due.id), UpdateExpression: 'SET leaseUntil = :past', ExpressionAttributeValues: { ':past': new Date(Date.now() - 1_000).toISOString() } });
    expect(await attemptDelivery(due)).toBeUndefined();

    expect(receiver.received.map((entry) => entry.headers['webhook-id'])).toEqual([due.eventId, due.eventId]);
    expect(await getDelivery(org.orgUuid, webhook.id, due.id)).toMatchObject({ status: 'delivered', attempts: 2 });
    expect((await listDeliveryAttempts(scope, webhook.id, 10)).map((attempt) => [attempt.attempt, attempt.ok, attempt.httpStatus])).toEqual([[2, true, 204]]);
    await deleteWebhook(scope, webhook.id);
  } finally {
    await receiver.close();
  }
});
