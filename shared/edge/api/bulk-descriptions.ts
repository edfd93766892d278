import { bulkCreateExampleFile, bulkPermissionsExampleFile } from './examples';
import { MULTIPART_MAX_BYTES, SYNC_WAIT_MS, UPLOAD_URL_SECONDS, bulkCreateLayout, bulkCreateLimits, bulkPermissionLimits, permissionColumns } from '../../app/bulk/bulk.limits';
import { groupDigits } from '../../kernel/text/numbers';

/**
 * What the document says of the bulk operations' files (docs/api/bulk.md): their columns, rules and limits,
 * with an example file each, from the constants the code enforces.
 */

const mib = (bytes: number) => `${bytes / 1024 / 1024} MiB`;
const code = (values: readonly string[]) => values.map((value) => `\`${value}\``).join(', ');
const csvBlock = (text: string) => `\`\`\`csv\n${text}\`\`\``;

const csvFormat =
  'UTF-8 CSV, with or without a byte-order mark, lines ending in LF or CRLF; a quoted field may hold commas, quotes (doubled) and line breaks. ' +
  'The first line names the columns, in any order and any case (surrounding spaces ignored).';

const bulkCreateFile = [
  `**Columns** (${code(bulkCreateLayout.columns)}; ${code(bulkCreateLayout.required)} must be there, the others may be left out when no row needs them, else 422 \`MISSING_COLUMNS\`):`,
  '',
  '- `Email`: the user\'s e-mail address (required).',
  '- `Name`: the user\'s name, one line of at most 200 characters (required).',
  '- `Company`: one line of at most 200 characters; a user\'s first row gives it.',
  '- `Password`: the user\'s password; left blank, a temporary one is generated and sent in the welcome e-mail.',
  '- `Role`: `ADMIN`, `SUPERVISOR`, `EDITOR` or `VIEWER`, in any case (required).',
  '- `EnvironmentUuid`, `EnvironmentName`: the environment the user is granted, by its uuid and its name (which must agree, ignoring case).',
  '- `Bot`: the uuid of a bot of that environment.',
  '',
  '**Rules** (each failed user gets one error naming the rule it broke):',
  '',
  '1. E-mails are unique across the organization (`EMAIL_TAKEN`); rows with the same e-mail are one user.',
  '2. A user has exactly one role: rows of one user that agree on role, name and password add up their grants; rows that disagree fail the user (`CONFLICTING_ROWS`).',
  '3. A password has at least 6 characters, an upper-case and a lower-case letter, and a digit or a special character (`PASSWORD_POLICY`).',
  '4. `Role` is required and one of the four (`ROLE_REQUIRED`, `ROLE_INVALID`).',
  '5. `VIEWER` and `EDITOR` need `EnvironmentUuid`, `EnvironmentName` and `Bot` (`ENVIRONMENT_AND_BOT_REQUIRED`).',
  '6. `SUPERVISOR` needs `EnvironmentUuid` and `EnvironmentName` (`ENVIRONMENT_REQUIRED`); without `Bot` the grant is the whole environment. `ADMIN` needs none (it reaches every bot).',
  '7. The environment and the bot exist, are active and belong together, and the name is the environment\'s (`ENVIRONMENT_NOT_FOUND`, `ENVIRONMENT_NAME_MISMATCH`, `BOT_NOT_FOUND`).',
  '',
  'Also: `EMAIL_INVALID`, `NAME_REQUIRED`, `FIELD_TOO_LONG`, and `IDENTITY_PROVIDER_FAILED` when the identity provider refused the user. ' +
    'An empty file is 422 `EMPTY_FILE`, one that is not UTF-8 CSV 422 `NOT_CSV`; either creates nobody. Values are stored as text; nothing in the file is evaluated.',
  '',
  '**Example file:**',
  '',
  csvBlock(bulkCreateExampleFile),
].join('\n');

export const bulkCreateDescription = [
  'Creates the users a CSV file lists, as `POST …/users` does, each welcomed by e-mail in the `language` header\'s language. ADMIN only.',
  '',
  `**The file**: the part \`file\` of a \`multipart/form-data\` body, at most ${mib(MULTIPART_MAX_BYTES)} (413 \`FILE_TOO_LARGE\`; larger files go through \`POST …/users/bulk-uploads\`) ` +
    `and ${groupDigits(bulkCreateLimits.maxRows)} rows (422 \`TOO_MANY_ROWS\`). ${csvFormat}`,
  '',
  bulkCreateFile,
  '',
  `**The answer.** The request waits for the job up to ${SYNC_WAIT_MS / 1000} s: 200 with the bulk error list when at least one user was created ` +
    '(`[]` when all were), one `{ email, message, line, errorCode }` per failed user, `line` the file line at fault (the header is line 1); ' +
    '422 `NO_USER_CREATED` with the same entries in `details` when none was. Past the wait, or with `Prefer: respond-async`, 202 and the job, polled at `Location`. ' +
    '`?dryRun=true` runs every check and answers the same list, creating nobody. ' +
    'Idempotent with `Idempotency-Key`: a replay starts no second job.',
].join('\n');

export const bulkUploadDescription = [
  'Starts a bulk-create job whose CSV file the client uploads itself: for files over the request body\'s ' +
    `${mib(MULTIPART_MAX_BYTES)}, or clients that cannot send multipart. ADMIN only.`,
  '',
  `Answers 201 with the job's id and \`upload\`, a presigned POST valid ${UPLOAD_URL_SECONDS / 60} minutes: send \`upload.url\` a \`multipart/form-data\` body ` +
    'with each of `upload.fields` as a part, as given, then the file as the part `file` (last). ' +
    `S3 answers 204; a file over \`upload.maxBytes\` (${mib(bulkCreateLimits.maxBytes)}) is refused by S3 itself, 400 \`EntityTooLarge\` (its XML error), and stores nothing. ` +
    `The upload starts the job, which reads the file exactly as \`POST …/users/bulk-create\` does; poll it at \`Location\`, whose \`errors\` list the failed users once it is \`done\`. ` +
    '`?dryRun=true` and the `language` header apply as there.',
  '',
  `**The file**: at most ${mib(bulkCreateLimits.maxBytes)} and ${groupDigits(bulkCreateLimits.maxRows)} rows. ${csvFormat}`,
  '',
  bulkCreateFile,
].join('\n');

export const bulkGrantDescription = [
  'Grants permissions listed in a CSV file, one grant per row, added to the user\'s own (a grant already held is kept once). ADMIN only.',
  '',
  `**The file**: the part \`file\` of a \`multipart/form-data\` body, at most ${mib(bulkPermissionLimits.maxBytes)} and ${groupDigits(bulkPermissionLimits.maxRows)} rows. ${csvFormat}`,
  '',
  `**Columns** (${code(permissionColumns)}; \`Email\`, \`EnvironmentUuid\` and \`EnvironmentName\` must be there):`,
  '',
  '- `Email`: an active user of the organization.',
  '- `EnvironmentUuid`, `EnvironmentName`: the environment, by its uuid and its name (which must agree, ignoring case).',
  '- `Bot`: the uuid of a bot of that environment; left blank, a `SUPERVISOR` is granted the whole environment.',
  '',
  '**Rules**: the user exists and is not deleted (`USER_NOT_FOUND`); an `ADMIN` already reaches every bot (`ADMIN_HAS_ALL`); ' +
    'every row names an environment (`ENVIRONMENT_REQUIRED`); a `VIEWER` or `EDITOR` row names a bot (`BOT_REQUIRED`); the environment and the bot exist, ' +
    'are active and belong together (`ENVIRONMENT_NOT_FOUND`, `ENVIRONMENT_NAME_MISMATCH`, `BOT_NOT_FOUND`). ' +
    'A user changed by someone else meanwhile is `CHANGED_MEANWHILE`: send its rows again.',
  '',
  '**The answer**: 200 with one `{ email, message, errorCode, line }` per row not applied (`[]` when all were). `?dryRun=true` checks every row and changes nothing.',
  '',
  '**Example file:**',
  '',
  csvBlock(bulkPermissionsExampleFile),
].join('\n');

export const bulkRevokeDescription = [
  'Revokes permissions, each item of the JSON array one of: `{ email, environmentUuid, bot }` the grant of that bot; ' +
    '`{ email, environmentUuid }` every grant in that environment; `{ email }` every grant of the user. ' +
    'A user may be left with none: it then reaches no bot. ADMIN only.',
  '',
  '**The answer**: 200 with one `{ email, message, errorCode, index }` per item not applied (`index` in the array): `USER_NOT_FOUND`, `ADMIN_HAS_ALL`, `GRANT_NOT_FOUND`. ' +
    '`?dryRun=true` checks every item and changes nothing.',
].join('\n');

export const bulkDeleteDescription =
  'Deletes the users with these e-mails (1 to 1,000), each as `DELETE …/users/{userId}` does, in order. ADMIN only. ' +
  'Answers 200 with one `{ email, message, errorCode, index }` per e-mail not deleted: `USER_NOT_FOUND`, `USER_DELETED` (also an e-mail listed twice), ' +
  '`SELF_DELETE`, `LAST_ADMIN`. `?dryRun=true` checks every e-mail and deletes nobody.';
