import { stackApiClient } from '../support/api-client';
import { revisionsOf, seededBot } from '../support/bot-helpers';
import { bodyOf, replayRouteEvents, type Expectation } from '../support/sample-events';

/** The sample events of the agents and supervisors functions (bundles included), replayed through their handlers. */

interface RevisionPage {
  totalElements: number;
  number: number;
  content: { revision: number; action: string }[];
}

/** The revision events of agents or supervisors: the first listed item's revision 1 (its creation by the seed). */
function revisionExpectations(kind: 'agents' | 'supervisors', placeholder: string): Record<string, Expectation> {
  return {
    [`${kind}.revisions`]: async (result) => {
      expect(result.statusCode).toBe(200);
      const page = bodyOf<RevisionPage>(result);
      expect(page.totalElements).toBeGreaterThanOrEqual(1);
      // Newest first: the latest revision is the total's number, since revisions have no gaps.
      expect(page.content[0]!.revision).toBe(page.totalElements);
      expect(page.number).toBe(1);
    },
    [`${kind}.revision`]: async (result, { values }) => {
      expect(result.statusCode).toBe(200);
      expect(bodyOf(result)).toMatchObject({ uuid: values[placeholder] });
    },
    [`${kind}.revisionDiff`]: async (result, { values }) => {
      expect(result.statusCode).toBe(200);
      expect(bodyOf(result)).toMatchObject({ from: null, to: 1, patch: [{ op: 'add', path: '', value: { uuid: values[placeholder] } }] });
    },
    [`${kind}.restore`]: async (result, { values }, token) => {
      expect(result.statusCode).toBe(200);
      const etag = String(result.headers?.etag);
      expect(etag).toMatch(/^"\d+"$/);
      const revisions = await revisionsOf(seededBot(), kind === 'agents' ? 'agent' : 'supervisor', values[placeholder]!, stackApiClient(token)).list();
      expect(revisions.body.content[0]).toMatchObject({ revision: Number(etag.replace(/"/g, '')), action: 'RESTORED' });
    },
  };
}

replayRouteEvents(['agents', 'supervisors'], {
  expectations: {
    ...revisionExpectations('agents', '__AGENT_UUID__'),
    ...revisionExpectations('supervisors', '__SUPERVISOR_UUID__'),
  },
});
