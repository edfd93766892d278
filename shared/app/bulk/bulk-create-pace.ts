import type { Pace, TokenBucket } from '../../kernel/retry';
import type { IdentityProvider } from '../users/identity-provider.port';

/** How a bulk-create job paces its rows' identity-provider calls and groups its users. */

/**
 * Cognito's default UserAccountRecovery quota, requests per second (docs/local-stack.md#cognitos-request-rate-quotas):
 * lower than UserCreation's, so a file that gives passwords is created at this rate.
 */
export const COGNITO_ACCOUNT_RECOVERY_RATE = 30;

/** The quotas a row's Cognito calls count against, each a bucket the row takes its turn from. */
export interface RowPace {
  creation: Pace;
  recovery: Pace;
}

/** Identity-provider calls at once: enough to keep Cognito's user-creation quota busy while each waits on its answer. */
export const CREATION_LANES = 16;

/**
 * Users registered together, at most: their claims one transaction, their records a few (about five
 * users a transaction, whose 100 items each user's twenty or so fill). A group is a second of the
 * creation pace, so the job's counts still move every second at a slower one.
 */
export const GROUP_SIZE = 50;
export const groupSizeFor = (pace: Pace) => Math.max(1, Math.min(GROUP_SIZE, Math.floor((pace as Partial<TokenBucket>).ratePerSecond ?? GROUP_SIZE)));

/** Groups under way at once: one writing while the next ones wait on the identity provider. */
export const GROUPS_AT_ONCE = 3;

/** The identity provider with at most `limit` of its calls under way at once. */
export function atMost(provider: IdentityProvider, limit: number): IdentityProvider {
  let running = 0;
  const waiting: (() => void)[] = [];
  const limited =
    <A extends unknown[]>(call: (...args: A) => Promise<void>) =>
    async (...args: A): Promise<void> => {
      if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      else running += 1;
      try {
        await call(...args);
      } finally {
        const next = waiting.shift();
        if (next) next();
        else running -= 1;
      }
    };
  return {
    createUser: limited((input) => provider.createUser(input)),
    updateEmail: limited((username, email) => provider.updateEmail(username, email)),
    setPassword: limited((username, password, options) => provider.setPassword(username, password, options)),
    disable: limited((username) => provider.disable(username)),
    enable: limited((username) => provider.enable(username)),
  };
}
