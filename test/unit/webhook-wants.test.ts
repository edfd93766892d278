import { wants } from '../../shared/domain/webhooks/delivery-schedule';
import type { WebhookRecord } from '../../shared/domain/webhooks/webhook.entities';

const createdAt = '2026-03-01T10:00:00.000Z';
const subscription = (fields: Partial<WebhookRecord> = {}): WebhookRecord => ({
  id: 'hook',
  orgUuid: 'org',
  url: 'https://receiver.example/hook',
  eventTypes: ['user.created'],
  enabled: true,
  excludeActors: ['integration-user'],
  secrets: [],
  createdAt,
  updatedAt: createdAt,
  ...fields,
});

describe('which changes a subscription wants', () => {
  test.each([
    ['a wanted type committed when the subscription was created', subscription(), createdAt, 'user.created', 'admin', true],
    ['a wanted type committed after it', subscription(), '2026-03-01T10:00:00.001Z', 'user.created', 'admin', true],
    ['a change committed before it, handed over later by the stream', subscription(), '2026-03-01T09:59:59.999Z', 'user.created', 'admin', false],
    ['a type it did not ask for', subscription(), '2026-03-02T00:00:00.000Z', 'user.deleted', 'admin', false],
    ['any type, for "*"', subscription({ eventTypes: ['*'] }), '2026-03-02T00:00:00.000Z', 'user.deleted', 'admin', true],
    ['a change of a user it excludes', subscription(), '2026-03-02T00:00:00.000Z', 'user.created', 'integration-user', false],
    ['a change of the system (no actor)', subscription(), '2026-03-02T00:00:00.000Z', 'user.created', null, true],
    ['anything, while disabled', subscription({ enabled: false }), '2026-03-02T00:00:00.000Z', 'user.created', 'admin', false],
  ] as const)('%s', (_case, webhook, time, shortType, actor, expected) => {
    expect(wants(webhook, { time }, shortType, actor)).toBe(expected);
  });
});
