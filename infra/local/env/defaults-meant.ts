import { envNames, type EnvName } from '../../../shared/kernel/config';
import type { Excused } from '../kernel/allow-list';

/**
 * Product variables a function reads although its template does not declare them, because in AWS the
 * code's default is meant, each with the reason; any other such read fails the integration run (`env-report.ts`).
 */
export type DefaultMeant = Excused & { variable: EnvName };

const TOKEN_LIFETIME = 'the stack declares token lifetimes only when the context sets them (tokenLifetimes); otherwise the code’s defaults are meant';
const WEBHOOK_WINDOW = 'the 24 h docs/api/events.md promises; no deployment shortens it';

export const defaultsMeant: readonly DefaultMeant[] = [
  { variable: envNames.accessTokenSeconds, functions: 'all', reason: TOKEN_LIFETIME },
  { variable: envNames.refreshTokenSeconds, functions: 'all', reason: TOKEN_LIFETIME },
  { variable: envNames.sessionMaxSeconds, functions: 'all', reason: TOKEN_LIFETIME },
  { variable: envNames.offlineSessionIdleSeconds, functions: 'all', reason: TOKEN_LIFETIME },
  {
    variable: envNames.auditRetentionDays,
    functions: 'all',
    reason: 'the stack declares it only when the context sets auditRetentionDays; otherwise the code’s 400 days are meant',
  },
  {
    variable: envNames.cognitoUserCreationRate,
    functions: 'all',
    reason: "Cognito's default UserCreation quota (50 a second) is meant; only an account granted more would declare it",
  },
  {
    variable: envNames.authRedirectUris,
    functions: ['auth'],
    reason: 'the stack declares it only when the context sets authRedirectUris; otherwise only loopback addresses and the reference’s own page are meant',
  },
  { variable: envNames.webhookRetrySeconds, functions: 'all', reason: WEBHOOK_WINDOW },
  { variable: envNames.webhookDisableAfterSeconds, functions: 'all', reason: WEBHOOK_WINDOW },
  { variable: envNames.webhookSecretOverlapSeconds, functions: 'all', reason: WEBHOOK_WINDOW },
];
