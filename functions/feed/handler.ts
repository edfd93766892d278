import { eventsApi } from '../../shared/edge/api/events.api';
import { readChangeFeed } from '../../shared/app/change-events/change-feed.service';
import { createFunction, routes } from '../../shared/edge/http/handler-factory';
import { tokenOperation } from '../../shared/edge/http/token-route';
import { ok } from '../../shared/edge/http/types';

/**
 * An organization's change feed (docs/api/events.md#the-change-feed): its own function, so requests
 * that wait for the next event hold none of the other groups' instances, and its time limit (29 s)
 * covers the longest wait (20 s).
 */
export const handlers = routes(
  tokenOperation(eventsApi.feed, {
    handle: async ({ query, scope }) => ok(await readChangeFeed(scope, query)),
  }),
);

export const handler = createFunction('feed', handlers);
