import { SWAGGER_UI_PACKAGE, swaggerUiBundledFiles } from '../../shared/edge/docs/swagger-ui-files';
import type { ResourceGroup } from '../../shared/edge/api/routes';
import type { BulkBucketAccess } from './bulk-bucket';
import type { UserPoolAction } from './user-directory';

/** Files of an npm package a function reads at run time, put beside its bundle (`node_modules/<package>/`). */
export interface PackageFiles {
  readonly packageName: string;
  readonly files: readonly string[];
}

/**
 * What each resource group needs beyond what every function gets (items of the table, the signing
 * key's public half, the pool ids and the routing settings). A group not listed needs nothing more.
 */
export interface GroupAccess {
  readonly userPoolActions?: readonly UserPoolAction[];
  readonly signsTokens?: boolean;
  /** `paced`: sends many in one run, at SES's send rate, which it reads with ses:GetAccount. */
  readonly sendsMail?: boolean | 'paced';
  /** Hands e-mails to users to the mail queue (sqs:SendMessage), which the `mail` function drains. */
  readonly queuesMail?: boolean;
  readonly bulkUploads?: BulkBucketAccess;
  /** Longer than the default 10 s: the bulk HTTP side waits for its worker, the worker imports files. */
  readonly timeoutSeconds?: number;
  /** The function runs when an object is created under the bulk bucket's `uploads/` prefix. */
  readonly onUpload?: boolean;
  /**
   * Reads none of the stack's data: gets none of what every other function gets (table, user pool,
   * signing key, nor their settings), only the routing settings.
   */
  readonly noData?: boolean;
  /** Names the console's client id (USER_POOL_CLIENT_ID) without any access to the pool: the reference signs in as that client. */
  readonly namesConsoleClient?: boolean;
  /** Writes supervisors or agents, each checking in its transaction that no bundle holds the bot (ConditionCheckItem). */
  readonly writesAgents?: boolean;
  /** Reads the table and writes nothing to it: only GetItem, Query and BatchGetItem. */
  readonly readsTableOnly?: boolean;
  /** Files the function reads from an npm package (the docs function's Swagger UI). */
  readonly packageFiles?: PackageFiles;
}

export const groupAccess: Partial<Record<ResourceGroup, GroupAccess>> = {
  auth: {
    // AdminSetUserPassword: the account page sets the password a user chooses (permanent).
    // AdminGetUser: a first link through an identity provider asks for the password of a user who has one.
    userPoolActions: ['AdminInitiateAuth', 'AdminSetUserPassword', 'AdminGetUser'],
    signsTokens: true,
  },
  // The API reference: the OpenAPI document and Swagger UI's files, nothing of the stack's data; its Authorize signs in as the console.
  docs: {
    noData: true,
    namesConsoleClient: true,
    packageFiles: { packageName: SWAGGER_UI_PACKAGE, files: swaggerUiBundledFiles },
  },
  supervisors: { writesAgents: true },
  // Agents, and bundles of a bot's whole configuration: an apply of hundreds of agents takes seconds, within API Gateway's 30 s.
  agents: { writesAgents: true, timeoutSeconds: 29 },
  users: {
    userPoolActions: [
      'AdminCreateUser',
      'AdminSetUserPassword',
      'AdminUpdateUserAttributes',
      'AdminDisableUser',
      'AdminEnableUser',
    ],
    queuesMail: true,
    // Cognito's throttling is retried with backoff (shared/adapters/clients/cognito.ts) before the answer: 20 s,
    // within API Gateway's 30 s.
    timeoutSeconds: 20,
  },
  // The SCIM service provider runs the users area's use cases: the same identity-provider steps and e-mails.
  scim: {
    userPoolActions: ['AdminCreateUser', 'AdminSetUserPassword', 'AdminUpdateUserAttributes', 'AdminDisableUser', 'AdminEnableUser'],
    queuesMail: true,
    timeoutSeconds: 20,
  },
  bulk: {
    // bulk-delete deletes each user as DELETE /users/{id} does: disables the account, re-enables it on rollback.
    userPoolActions: ['AdminDisableUser', 'AdminEnableUser'],
    bulkUploads: 'readWrite',
    // API Gateway gives an integration 30 s; the handler answers 202 after waiting 25 s.
    timeoutSeconds: 29,
  },
  'bulk-worker': {
    userPoolActions: ['AdminCreateUser', 'AdminSetUserPassword'],
    queuesMail: true,
    bulkUploads: 'readWrite',
    timeoutSeconds: 900,
    onUpload: true,
  },
  // The table stream's reader (a batch of up to 100 changes, each put on EventBridge) and the webhook
  // sweep, which a schedule starts each minute and which runs for about 75 s (change-events.ts).
  publisher: {
    timeoutSeconds: 90,
  },
  // The change feed: a request waits up to 20 s for the next event, then answers, within API Gateway's 30 s.
  // It reads the caller and the feed, and writes nothing.
  feed: {
    timeoutSeconds: 29,
    readsTableOnly: true,
  },
  // The mail queue's consumer: up to 10 e-mails an invocation at its share of SES's send rate.
  mail: {
    sendsMail: 'paced',
    timeoutSeconds: 60,
  },
};
