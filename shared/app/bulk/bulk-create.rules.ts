import * as z from 'zod/mini';
import '../../kernel/schemas/zod-messages';
import { errorMessage, type ErrorCode } from '../../kernel/errors';
import { getBot, getEnvironment } from '../../domain/org/org.repository';
import type { Bot, Environment } from '../../domain/org/org.entities';
import { passwordPolicy } from '../../domain/users/password-policy.port';
import { roles, type Permission, type Role } from '../../domain/users/user.entities';
import type { CsvRow } from './csv-file';
import { type BulkCreateColumn } from './bulk.limits';
import { eachLimited } from '../../kernel/retry';
import type { BulkError } from '../../domain/bulk/bulk-job.entities';


/**
 * Bulk-create's rules (docs/api/bulk.md#bulk-create) for the rows of one file. Rows are gathered per e-mail first:
 * rows for the same user that agree (role, name, password) add up their grants; rows that disagree
 * make the user fail. Each failed user gets one error naming the rule it broke.
 */



export type { BulkError };

export const bulkError = (email: string, line: number, errorCode: ErrorCode, detail?: string): BulkError => ({
  email,
  line,
  errorCode,
  message: detail ? `${errorMessage(errorCode, 'row')}: ${detail}` : errorMessage(errorCode, 'row'),
});

/** A user the file asks for, gathered from its rows. */
export interface Candidate {
  email: string;
  name: string;
  company?: string;
  password?: string;
  role: Role;
  permissions: Permission[];
  /** The first line of the user in the file; every line, for the failed-rows file. */
  line: number;
  lines: number[];
}

const emailFormat = z.email();
const uuidFormat = z.uuid();

interface RowGrant {
  environmentUuid: string;
  environmentName: string;
  botUuid?: string;
  line: number;
}

/** Checks what one row can tell alone (rules 3 to 6 and the formats). */
function checkRow(row: CsvRow<BulkCreateColumn>): { error: BulkError } | { candidate: Candidate; grant?: RowGrant } {
  const v = row.values;
  const email = v.Email;
  const fail = (code: ErrorCode, detail?: string) => ({ error: bulkError(email, row.line, code, detail) });
  if (!email || email.length > 254 || !emailFormat.safeParse(email).success) return fail('EMAIL_INVALID');
  if (!v.Name) return fail('NAME_REQUIRED');
  if (v.Name.length > 200 || v.Company.length > 200 || /\p{Cc}/u.test(v.Name + v.Company)) {
    return fail('FIELD_TOO_LONG', 'Name and Company take at most 200 characters on one line');
  }
  if (!v.Role) return fail('ROLE_REQUIRED');
  const role = v.Role.toUpperCase() as Role;
  if (!roles.includes(role)) return fail('ROLE_INVALID');
  if (v.Password) {
    const problem = passwordPolicy.problem(v.Password);
    if (problem) return fail('PASSWORD_POLICY', problem);
  }
  let grant: RowGrant | undefined;
  if (role === 'VIEWER' || role === 'EDITOR') {
    if (!v.EnvironmentUuid || !v.EnvironmentName || !v.Bot) return fail('ENVIRONMENT_AND_BOT_REQUIRED');
  }
  if (role === 'SUPERVISOR' && (!v.EnvironmentUuid || !v.EnvironmentName)) return fail('ENVIRONMENT_REQUIRED');
  if (role !== 'ADMIN') {
    if (!uuidFormat.safeParse(v.EnvironmentUuid).success) return fail('ENVIRONMENT_NOT_FOUND');
    if (v.Bot && !uuidFormat.safeParse(v.Bot).success) return fail('BOT_NOT_FOUND');
    grant = {
      environmentUuid: v.EnvironmentUuid.toLowerCase(),
      environmentName: v.EnvironmentName,
      ...(v.Bot ? { botUuid: v.Bot.toLowerCase() } : {}),
      line: row.line,
    };
  }
  return {
    candidate: {
      email,
      name: v.Name,
      ...(v.Company ? { company: v.Company } : {}),
      ...(v.Password ? { password: v.Password } : {}),
      role,
      permissions: [],
      line: row.line,
      lines: [row.line],
    },
    grant,
  };
}

/** Rule 7, with each environment and bot read once per file. */
export class OrgDirectory {
  private readonly environments = new Map<string, Promise<Environment | undefined>>();
  private readonly bots = new Map<string, Promise<Bot | undefined>>();
  constructor(private readonly orgUuid: string) {}

  environment(envUuid: string) {
    if (!this.environments.has(envUuid)) this.environments.set(envUuid, getEnvironment(this.orgUuid, envUuid));
    return this.environments.get(envUuid)!;
  }

  bot(envUuid: string, botUuid: string) {
    const key = `${envUuid}/${botUuid}`;
    if (!this.bots.has(key)) this.bots.set(key, getBot(this.orgUuid, envUuid, botUuid));
    return this.bots.get(key)!;
  }

  async grantProblem(grant: RowGrant): Promise<{ code: ErrorCode; line: number } | undefined> {
    const environment = await this.environment(grant.environmentUuid);
    if (!environment?.active) return { code: 'ENVIRONMENT_NOT_FOUND', line: grant.line };
    if (environment.name.trim().toLowerCase() !== grant.environmentName.trim().toLowerCase()) {
      return { code: 'ENVIRONMENT_NAME_MISMATCH', line: grant.line };
    }
    if (grant.botUuid && !(await this.bot(grant.environmentUuid, grant.botUuid))?.active) {
      return { code: 'BOT_NOT_FOUND', line: grant.line };
    }
    return undefined;
  }
}

/**
 * Gathers a file's rows into candidates, one per e-mail (case-insensitive), and the errors of the
 * users that cannot be created. `emailTaken` answers rule 1 against the organization.
 */
export class BulkCreatePlan {
  private readonly users = new Map<string, { candidate: Candidate; grants: RowGrant[] } | { error: BulkError; lines: number[] }>();
  rows = 0;

  add(row: CsvRow<BulkCreateColumn>): void {
    this.rows += 1;
    const checked = checkRow(row);
    // Rows without a usable e-mail are no one's: each fails on its own.
    const key = 'error' in checked && checked.error.errorCode === 'EMAIL_INVALID' ? `\u0000${row.line}` : row.values.Email.toLowerCase();
    const seen = this.users.get(key);
    if ('error' in checked) {
      if (!seen) this.users.set(key, { error: checked.error, lines: [row.line] });
      else if ('error' in seen) seen.lines.push(row.line);
      else this.users.set(key, { error: checked.error, lines: [...seen.candidate.lines, row.line] });
      return;
    }
    if (!seen) {
      this.users.set(key, { candidate: checked.candidate, grants: checked.grant ? [checked.grant] : [] });
      return;
    }
    if ('error' in seen) {
      seen.lines.push(row.line);
      return;
    }
    const first = seen.candidate;
    const next = checked.candidate;
    if (first.role !== next.role || first.name !== next.name || (first.password ?? '') !== (next.password ?? '')) {
      const error = bulkError(first.email, row.line, 'CONFLICTING_ROWS', `first on line ${first.line}`);
      this.users.set(key, { error, lines: [...first.lines, row.line] });
      return;
    }
    first.lines.push(row.line);
    if (checked.grant) seen.grants.push(checked.grant);
  }

  /** Applies rule 7 and rule 1; returns the users to create and the errors, ordered by line. `emailsTaken` answers which of the e-mails the organization's users have. */
  async resolve(
    orgUuid: string,
    emailsTaken: (emails: string[]) => Promise<ReadonlySet<string>>,
  ): Promise<{ candidates: Candidate[]; errors: BulkError[]; failedLines: Set<number> }> {
    const directory = new OrgDirectory(orgUuid);
    const granted: Candidate[] = [];
    const errors: BulkError[] = [];
    const failedLines = new Set<number>();
    const fail = (error: BulkError, lines: readonly number[]) => {
      errors.push(error);
      lines.forEach((line) => failedLines.add(line));
    };
    // At most 16 users' lookups at once: a file of 10,000 users must not open 10,000 requests.
    await eachLimited(
      [...this.users.values()],
      16,
      async (entry) => {
        if ('error' in entry) return fail(entry.error, entry.lines);
        const { candidate, grants } = entry;
        for (const grant of grants) {
          const problem = await directory.grantProblem(grant);
          if (problem) return fail(bulkError(candidate.email, problem.line, problem.code), candidate.lines);
        }
        const permissions = new Map<string, Permission>();
        for (const g of grants) {
          permissions.set(`${g.environmentUuid}/${g.botUuid ?? '*'}`, g.botUuid ? { environmentUuid: g.environmentUuid, botUuid: g.botUuid } : { environmentUuid: g.environmentUuid });
        }
        granted.push({ ...candidate, permissions: [...permissions.values()] });
      },
    );
    // Rule 1 for every user at once: the organization's e-mails are read in batches, not one by one.
    const taken = await emailsTaken(granted.map((candidate) => candidate.email));
    const candidates: Candidate[] = [];
    for (const candidate of granted) {
      if (taken.has(candidate.email)) fail(bulkError(candidate.email, candidate.line, 'EMAIL_TAKEN'), candidate.lines);
      else candidates.push(candidate);
    }
    const byLine = (a: { line: number }, b: { line: number }) => a.line - b.line;
    return { candidates: candidates.sort(byLine), errors: errors.sort(byLine), failedLines };
  }
}
