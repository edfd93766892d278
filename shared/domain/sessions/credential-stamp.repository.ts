import { keys, type ItemKey } from '../../adapters/store/keys';
import { getItem, type TableWrite } from '../../adapters/store/table';
import { emailDomainOf, sessionOutlived, type DomainStamp, type StampedUser } from './credential-stamp';
import type { Session } from './session.repository';

/** Where the credential stamps of e-mail domains are kept (the rules that read them: `credential-stamp.ts`). */

/** The key of the stamp of a user's e-mail domain, when the e-mail has one. */
export function domainStampKey(orgUuid: string, email: unknown): ItemKey | undefined {
  const domain = emailDomainOf(email);
  return domain === undefined ? undefined : keys.domainCredentialStamp(orgUuid, domain);
}

/** The stamp of a user's e-mail domain, if its password sign-ins were ever ended. */
export async function readDomainStamp(orgUuid: string, email: string, options: { consistent: boolean } = { consistent: true }): Promise<DomainStamp | undefined> {
  const key = domainStampKey(orgUuid, email);
  return key === undefined ? undefined : getItem<DomainStamp>(key, options);
}

/** The writes that end, as of `atMs`, the password sessions of the users of `domains` (for the transaction that enforces their provider). */
export function domainStampWrites(orgUuid: string, domains: readonly string[], atMs: number): TableWrite[] {
  return domains.map((domain) => ({
    Update: {
      Key: keys.domainCredentialStamp(orgUuid, domain),
      UpdateExpression: 'SET #type = :type, orgUuid = :org, #domain = :domain, passwordsEndedAt = :at',
      ExpressionAttributeNames: { '#type': 'type', '#domain': 'domain' },
      ExpressionAttributeValues: { ':type': 'DOMAIN_CREDENTIAL_STAMP', ':org': orgUuid, ':domain': domain.toLowerCase(), ':at': atMs },
    },
  }));
}

/** `sessionOutlived`, reading the domain's stamp only for a session begun with a password. */
export async function sessionOutlivedNow(session: Pick<Session, 'startedAtMs' | 'createdAt' | 'authTime' | 'signedInWith'>, user: Required<Pick<StampedUser, 'orgUuid' | 'email'>> & StampedUser): Promise<boolean> {
  const domainStamp = session.signedInWith === 'provider' ? undefined : await readDomainStamp(user.orgUuid, user.email);
  return sessionOutlived(session, user, domainStamp);
}
