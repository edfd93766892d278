import { unique } from './stack';
import { createViaApi, deleteViaApi, freshOrganization, type TestOrg, type UserDto } from './user-helpers';

/**
 * An organization holding a fixed set of users for the listing and quicksearch assertions, never
 * changed by a test: its ADMIN Olga Admin, then `people` created one after the other (creation order
 * is the default sort's), of whom Mary Major is deleted.
 */

export const people = {
  jose: { name: 'José Álvarez', email: 'pepe', company: 'Acme Corp' },
  john: { name: 'John Doe', email: 'bravo', company: 'Globex' },
  jane: { name: 'Jane Doe', email: 'xavier', company: 'Hooli' },
  zoe: { name: 'Zoë Zimmer', email: 'charlie', company: 'Initech' },
  albert: { name: 'Albert Brown', email: 'mike', company: 'Umbrella' },
  ada: { name: 'Ada Lovelace', email: 'echo', company: 'Analytical Engines' },
  alan: { name: 'Alan Turing', email: 'golf', company: 'Bletchley Park' },
  mary: { name: 'Mary Major', email: 'delta', company: 'Globex' },
};

export interface ListedOrg {
  org: TestOrg;
  /** The suffix of every e-mail of the organization (`<local part>.<run>@example.test`). */
  run: string;
  /** The users as the API created them, by their short name. */
  users: Record<keyof typeof people, UserDto>;
}

export async function listedOrganization(): Promise<ListedOrg> {
  const run = unique();
  const org = await freshOrganization({ adminName: 'Olga Admin', adminEmail: `kilo.${run}@example.test` });
  const users = {} as ListedOrg['users'];
  // One after the other, so that creation order (the default sort) is the order of `people`.
  for (const [key, person] of Object.entries(people)) {
    users[key as keyof typeof people] = await createViaApi(org, {
      name: person.name,
      email: `${person.email}.${run}@example.test`,
      company: person.company,
    });
  }
  await deleteViaApi(org, users.mary.uuid);
  return { org, run, users };
}
