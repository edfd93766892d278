import { ok } from '../../typescript/src/index';
import { orgOf, type Connection } from './connection';
import { EXIT, note, print } from './output';
import { deleteProfile, profileFile } from './profile';

/** `whoami`: the signed-in user, the organization and the role. */
export async function whoami(connection: Connection, flags: { json: boolean }): Promise<number> {
  const claims = await connection.session.claims();
  const base = { apiUrl: connection.apiUrl, realm: connection.realm, email: claims.email, userUuid: claims.sub };
  const orgUUID = await orgOf(connection).catch(() => undefined);
  if (!orgUUID) {
    print(flags.json, { ...base, org: null, role: null }, () =>
      [
        `${String(claims.email)} at ${connection.apiUrl}`,
        `organization: ${connection.realm} (its uuid is not known: sign in again with \`apctl login\`, or pass --org or set APCTL_ORG, to see the role)`,
      ].join('\n'),
    );
    return EXIT.ok;
  }
  const me = await ok(connection.api.GET('/user-management/org/{orgUUID}/users/identity-provider', { params: { path: { orgUUID } } }));
  print(flags.json, { ...base, org: me.orgUUID, name: me.name, role: me.role, permissions: me.permissions }, () =>
    [`${me.name} <${me.email}> at ${connection.apiUrl}`, `organization: ${connection.realm} (${me.orgUUID})`, `role: ${me.role}`].join('\n'),
  );
  return EXIT.ok;
}

/** `logout`: revokes the profile's offline token at the realm, then deletes the profile. */
export async function logout(connection: Connection): Promise<number> {
  await connection.session.revoke();
  deleteProfile(connection.profileName);
  note(`Signed out: the offline token is revoked and ${profileFile(connection.profileName)} is deleted`);
  return EXIT.ok;
}
