import type { CsvLayout, CsvLimits } from './csv-file';

/**
 * What the bulk operations' files and requests may hold, and how long they wait: the constants the
 * code enforces and the API description states (a module of values only, so the description does
 * not load the bulk services).
 */

export const bulkCreateColumns = ['Email', 'Name', 'Company', 'Password', 'Role', 'EnvironmentUuid', 'EnvironmentName', 'Bot'] as const;
export type BulkCreateColumn = (typeof bulkCreateColumns)[number];
/** Email, Name and Role must be columns of every file; the others may be left out when no row needs them. */
export const bulkCreateLayout: CsvLayout<BulkCreateColumn> = { columns: bulkCreateColumns, required: ['Email', 'Name', 'Role'] };

/**
 * What a bulk-create file may hold (docs/api/bulk.md#bulk-create): 10,000 rows, and 50 MiB for a file uploaded
 * with a presigned URL (the API's own body takes 4 MiB).
 */
export const bulkCreateLimits: CsvLimits = { maxRows: 10_000, maxBytes: 50 * 1024 * 1024 };

/** The columns of a bulk-permissions file (docs/api/bulk.md): a grant per row. */
export const permissionColumns = ['Email', 'EnvironmentUuid', 'EnvironmentName', 'Bot'] as const;
export type PermissionColumn = (typeof permissionColumns)[number];
export const permissionLayout: CsvLayout<PermissionColumn> = { columns: permissionColumns, required: ['Email', 'EnvironmentUuid', 'EnvironmentName'] };
export const bulkPermissionLimits = { maxRows: 5_000, maxBytes: 1024 * 1024 };

/**
 * The largest file `POST /users/bulk-create` takes in its multipart body: 4 MiB. The binding limit is
 * not API Gateway's 10 MB body but Lambda's 6 MB invocation payload (6,291,456 bytes of event JSON),
 * in which the body travels base64-encoded (4/3 larger). A 4 MiB file with up to 1 KiB of multipart
 * framing is 4 × ⌈4,195,328 / 3⌉ = 5,593,772 bytes of base64, which leaves 697,684 bytes for the rest
 * of the event: headers (API Gateway takes at most 10 KiB of them; JSON escaping can inflate them
 * sixfold), the path twice, the query and the request context. 4.5 MiB alone would encode to exactly
 * 6,291,456 bytes. Larger files go through `POST /users/bulk-uploads` (a presigned POST).
 */
export const MULTIPART_MAX_BYTES = 4 * 1024 * 1024;

/** How long `POST /users/bulk-create` waits for the worker before answering with the job (API Gateway allows 30 s). */
export const SYNC_WAIT_MS = 25_000;

/** How long a presigned upload form stays valid. */
export const UPLOAD_URL_SECONDS = 900;
