/** The shapes of the table's keys, for the modules that build them (`keys.ts`, `sign-in-keys.ts`). */
export interface ItemKey {
  PK: string;
  SK: string;
}

export interface IndexedKey extends ItemKey {
  GSI1PK: string;
  GSI1SK: string;
}

/** A refresh session's kind: each user holds a capped number of each. */
export type RefreshSessionKind = 'OFFLINE' | 'ONLINE' | 'PAGE';

/** The partition of an organization's own items. */
export const orgPartition = (orgUuid: string) => `ORG#${orgUuid}`;
