import { keys, type ItemKey } from '../../adapters/store/keys';
import { transactWrite, type TableWrite } from '../../adapters/store/table';

/**
 * What applying a bundle writes beside the records' own Puts (`agent.repository.ts`, which holds the
 * bot's bundle lease too): its transactions, and the writes that undo one once committed.
 */

/** One write of a bundle's transaction: a record's, its revision's, its audit event's or the lease's check. */
export type BundleWrite = TableWrite;

/** Writes one transaction of a bundle (at most 100 writes): the indexes of the writes whose condition failed (none: all written). */
export async function writeBundleTransaction(writes: BundleWrite[]): Promise<number[]> {
  return transactWrite(writes);
}

/** The write that removes a supervisor or agent the bundle created. */
export const agentRemoval = (botUuid: string, agentUuid: string): BundleWrite => ({ Delete: { Key: keys.agent(botUuid, agentUuid) } });

/** The write that removes the item a Put of the bundle wrote (a revision, an audit event, the default marker). */
export function removalOf(put: BundleWrite): BundleWrite {
  const { PK, SK } = put.Put!.Item as ItemKey;
  return { Delete: { Key: { PK, SK } } };
}
