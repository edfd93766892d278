import type { ResourceGroup } from '../../shared/routes';
import type { BulkBucketAccess } from './bulk-bucket';
import type { UserPoolAction } from './user-directory';

/**
 * What each resource group needs beyond what every function gets (items of the table, the signing
 * key's public half, the pool ids and the routing settings). A group not listed needs nothing more.
 */
export interface GroupAccess {
  readonly userPoolActions?: readonly UserPoolAction[];
  readonly signsTokens?: boolean;
  readonly sendsMail?: boolean;
  readonly bulkUploads?: BulkBucketAccess;
}

export const groupAccess: Partial<Record<ResourceGroup, GroupAccess>> = {
  auth: {
    userPoolActions: ['AdminInitiateAuth', 'AdminGetUser'],
    signsTokens: true,
  },
  users: {
    userPoolActions: [
      'AdminCreateUser',
      'AdminSetUserPassword',
      'AdminUpdateUserAttributes',
      'AdminDisableUser',
      'AdminEnableUser',
      'AdminUserGlobalSignOut',
      'AdminGetUser',
    ],
    sendsMail: true,
  },
};
