import { changeFeedSchemas } from '../../app/change-events/change-feed.schemas';
import { FEED_PROMISED_DAYS } from '../../domain/audit/change-feed';
import { userSchemas } from '../../domain/users/user.schemas';
import { operationsUnder } from './operation';

/**
 * An organization's change feed (docs/api/events.md#the-change-feed), ADMIN only: served by a function
 * of its own, whose time limit leaves room for a request that waits 20 s for the next event.
 */
const feed = operationsUnder('feed', 'user', '/org/{orgUUID}', { access: { org: 'admin', because: 'Only an ADMIN reads change events' } });

export const eventsApi = {
  feed: feed({
    id: 'events.feed',
    method: 'GET',
    path: '/events',
    request: { path: () => userSchemas().orgPathSchema, query: () => changeFeedSchemas().feedQuerySchema },
    summary: "The organization's change events, oldest first (ADMIN only)",
    description:
      'The same CloudEvents EventBridge and webhooks receive (same `id`, `type`, `time`, `data`), in the order they were added to the feed. ' +
      'Store `next` after each page and pass it as `after`: a consumer that follows `next` misses no event and sees each once per cursor. ' +
      'With `wait`, a request that finds nothing after the cursor answers as soon as an event arrives, or with no events once `wait` seconds have passed. ' +
      `Events are kept at least ${FEED_PROMISED_DAYS} days; a cursor older than that answers 410 \`FEED_CURSOR_EXPIRED\`: start again without \`after\`. ` +
      'A cursor that is not one this feed gave, or of another organization, is a 400 `FEED_CURSOR_INVALID`; an unknown type, a `limit` or a `wait` out of range a 422.',
    responses: [{ status: 200, description: 'The events after the cursor (possibly none) and the cursor after them', json: () => changeFeedSchemas().feedPageSchema }],
    errors: { extra: [410] },
  }),
};
