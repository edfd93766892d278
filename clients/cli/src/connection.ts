import { authorizedFetch, createApiClient, decodeJwt, RealmSession, type ApiClient } from '../../typescript/src/index';
import { note, UsageError } from './output';
import { readProfile, writeProfile, type Profile } from './profile';
import { version } from './version';

/** The options every command that calls the API takes. */
export interface ConnectionFlags {
  profile: string;
  org?: string;
}

/** Who a command calls as: a stored profile, or the CI variables that replace it. */
export interface Connection {
  apiUrl: string;
  realm: string;
  clientId: string;
  session: RealmSession;
  api: ApiClient;
  /** The same retries and token for a path the typed client does not describe. */
  send: (input: Request) => Promise<Response>;
  profileName: string;
  /** The stored profile, unless the CI variables are used. */
  profile?: Profile;
  org?: string;
}

const userAgent = `apctl/${version}`;

/**
 * The connection of a command: `APCTL_OFFLINE_TOKEN` (with `APCTL_API_URL` and `APCTL_REALM`, which the
 * token's issuer also gives) replaces the profile, as CI sets it; otherwise the profile `apctl login` kept.
 */
export function connect(flags: ConnectionFlags, { profileOnly = false } = {}): Connection {
  const fromEnv = profileOnly ? undefined : process.env.APCTL_OFFLINE_TOKEN?.trim();
  let base: Omit<Connection, 'session' | 'api' | 'send' | 'org'> & { offlineToken: string; org?: string };
  if (fromEnv) {
    const claims = claimsOf(fromEnv);
    const issuer = typeof claims.iss === 'string' ? claims.iss : '';
    const match = /^(.*)\/auth\/realms\/([^/]+)$/.exec(issuer);
    const apiUrl = process.env.APCTL_API_URL?.trim() || match?.[1];
    const realm = process.env.APCTL_REALM?.trim() || match?.[2];
    if (!apiUrl || !realm) throw new UsageError('APCTL_OFFLINE_TOKEN is set but the API or realm is unknown: set APCTL_API_URL and APCTL_REALM too');
    if (typeof claims.azp !== 'string') throw new UsageError('APCTL_OFFLINE_TOKEN is not an offline token of this API: store the refresh_token of a sign-in with scope offline_access');
    base = { apiUrl, realm, clientId: claims.azp, offlineToken: fromEnv, profileName: flags.profile, org: process.env.APCTL_ORG?.trim() || undefined };
  } else {
    const profile = readProfile(flags.profile);
    if (!profile) {
      const named = flags.profile === 'default' ? '' : ` --profile ${flags.profile}`;
      throw new UsageError(`Not signed in: run \`apctl login --api <URL> --realm <organization>${named}\`, or set APCTL_API_URL, APCTL_REALM and APCTL_OFFLINE_TOKEN`);
    }
    base = { ...profile, profileName: flags.profile, profile, org: process.env.APCTL_ORG?.trim() || profile.org };
  }
  const session = RealmSession.fromOfflineToken({ apiUrl: base.apiUrl, realm: base.realm, clientId: base.clientId }, base.offlineToken);
  const onRetry = ({ delayMs, status }: { delayMs: number; status?: number }) =>
    note(`The API answered ${status ?? 'nothing'}; trying again in ${(delayMs / 1000).toFixed(1)} s`);
  const options = { apiUrl: base.apiUrl, auth: session, userAgent, onRetry };
  return {
    apiUrl: base.apiUrl.replace(/\/$/, ''),
    realm: base.realm,
    clientId: base.clientId,
    session,
    api: createApiClient(options),
    send: authorizedFetch(options),
    profileName: base.profileName,
    profile: base.profile,
    org: flags.org ?? base.org,
  };
}

/**
 * The organization a command acts on: `--org`, else `APCTL_ORG`, else the signed-in user's (kept in the
 * profile at sign-in, or read from the realm's userinfo when the session was granted the `organization` scope).
 */
export async function orgOf(connection: Connection): Promise<string> {
  connection.org ??= await connection.session.organizationId().catch(() => undefined);
  if (connection.org) return connection.org.toLowerCase();
  throw new UsageError(
    `The organization's uuid is not known for this sign-in (its token was not granted the scope organization): sign in again with \`apctl login\`, pass --org <uuid> or set APCTL_ORG`,
  );
}

/** Keeps what a command learnt (the org, the listen cursor) in the profile, when one is used. */
export function updateProfile(connection: Connection, change: Partial<Profile>): void {
  if (!connection.profile) return;
  Object.assign(connection.profile, change);
  writeProfile(connection.profileName, connection.profile);
}

function claimsOf(token: string): Record<string, unknown> {
  try {
    return decodeJwt(token);
  } catch {
    throw new UsageError('APCTL_OFFLINE_TOKEN is not a token of this API: store the refresh_token of a sign-in with scope offline_access');
  }
}
