import { generatePassword, passwordProblem as poolPasswordProblem } from '../../adapters/identity/password-policy';

/**
 * Port: the identity provider's password policy (docs/api/bulk.md#bulk-create, rule 3), which the
 * request schemas, the bulk rules and the operator check before the identity provider would refuse.
 */
export interface PasswordPolicy {
  /** What is wrong with a password, or undefined. */
  problem(password: string): string | undefined;
  /** A password the policy takes, for a welcome e-mail when the ADMIN set none. */
  generate(): string;
}

/** The policy of the Cognito pool (the pool is configured with the same rules). */
export const passwordPolicy: PasswordPolicy = { problem: poolPasswordProblem, generate: generatePassword };

/** What is wrong with a password under the policy, or undefined (`passwordPolicy.problem`, for a schema's refinement). */
export const passwordProblem = (password: string): string | undefined => passwordPolicy.problem(password);
