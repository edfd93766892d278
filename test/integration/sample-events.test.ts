import { resourceGroups, routesOfGroup } from '../../shared/edge/api/routes';
import { expectNamesEvents, httpFiles, idOf, jobKinds, queueFiles, routes, s3Files, streamFiles } from '../support/sample-events';

/**
 * The sample events of `events/` cover the API: a file per route, a trigger event per function without
 * one. Each area's file (`sample-events-<area>.test.ts`) replays its events through the handlers.
 */

test('every route of the route table has a sample event', () => {
  expect(httpFiles.map(idOf).sort()).toEqual(routes.map((route) => route.id).sort());
});

test('every function without a route has a sample trigger event (S3, the table stream, a queue), named after it', () => {
  const triggered = resourceGroups.filter((group) => routesOfGroup(routes, group).length === 0);
  expect([...new Set([...s3Files, ...streamFiles, ...queueFiles].map((file) => file.split('.')[0]))].sort()).toEqual([...triggered].sort());
});

test('every route-specific expectation names a route or an S3 event', () => {
  const ids = [...routes.map((route) => route.id), ...s3Files.map(idOf), ...streamFiles.map(idOf), ...queueFiles.map(idOf)];
  // The jobs' table is shared; each area's tables of preparations and expectations are checked as they
  // are declared, by this check, so a misnamed entry fails its file.
  expect(Object.keys(jobKinds).filter((id) => !ids.includes(id))).toEqual([]);
  expect(() => expectNamesEvents({ 'users.lisst': null }, ids)).toThrow(/named users\.lisst/);
});
