import { REALM_NAME } from '../../domain/org/org.entities';
import { findRealm } from '../../domain/org/org.repository';

/** The organization of a realm name; a name that cannot be a realm is not looked up. */
export async function organizationOfRealm(realm: string): Promise<string | undefined> {
  return REALM_NAME.test(realm.toLowerCase()) ? findRealm(realm) : undefined;
}

/** Realm names match without regard to case; tokens name the realm in its one (lower-case) spelling. */
export const canonicalRealm = (realm: string) => realm.toLowerCase();
