import type * as IdempotencyStores from '@aws-lambda-powertools/idempotency/dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { dynamodbClient } from '../../adapters/clients/dynamodb';
import { keys } from '../../adapters/store/keys';
import { config } from '../../kernel/config';

/** Powertools' DynamoDB store class, as the idempotency library the HTTP chain loads on first use gives it. */
export type IdempotencyStoreClass = typeof IdempotencyStores.DynamoDBPersistenceLayer;

let UserIdempotencyStore: (new (userUuid: string) => IdempotencyStores.DynamoDBPersistenceLayer) | undefined;

/**
 * Where `Idempotency-Key` records are kept: Powertools' DynamoDB store, on the project's table and
 * client, with the record under the user (`keys.idempotencyRecord`) rather than in one partition
 * shared by every record, and its expiry in the table's TTL attribute. `Store` is the library's own
 * class, from the copy the chain loaded (so both share one copy of its classes); the subclass is made
 * on first use.
 */
export function userIdempotencyStore(Store: IdempotencyStoreClass, userUuid: string): IdempotencyStores.DynamoDBPersistenceLayer {
  UserIdempotencyStore ??= class extends Store {
    constructor(private readonly userUuid: string) {
      super({ tableName: config().tableName, keyAttr: 'PK', sortKeyAttr: 'SK', expiryAttr: 'ttl', awsSdkV3Client: dynamodbClient() });
    }

    protected override getKey(idempotencyKey: string) {
      return marshall(keys.idempotencyRecord(this.userUuid, idempotencyKey));
    }
  };
  return new UserIdempotencyStore(userUuid);
}
