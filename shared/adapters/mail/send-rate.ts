import { GetAccountCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import { sesClient } from '../clients/ses';
import { logger } from '../../kernel/logger';
import { TokenBucket, type Pace } from '../../kernel/retry';
import { reasonOf } from './mail-errors';
import type { Mailer } from './mailer';

/**
 * Messages per second when SES's quota cannot be read: the SES sandbox's rate, the lowest an account
 * has. The local SES emulator answers `GetAccount` only when its process has `AWS_SES_ACCOUNT` set
 * (a JSON account), so without it the local stack sends at this rate too.
 */
export const FALLBACK_SEND_RATE = 1;

/** SES's send rate for this account and region, or the fallback and why the quota was not read. */
export type SendRate = { ratePerSecond: number; source: 'account' } | { ratePerSecond: number; source: 'fallback'; reason: string };

/** Reads `SendQuota.MaxSendRate` with SES v2 `GetAccount` (v1's `GetSendQuota`); never throws. */
export async function readSendRate(client: SESv2Client = sesClient()): Promise<SendRate> {
  let reason: string;
  try {
    const rate = (await client.send(new GetAccountCommand({}))).SendQuota?.MaxSendRate;
    if (typeof rate === 'number' && Number.isFinite(rate) && rate > 0) return { ratePerSecond: rate, source: 'account' };
    reason = 'NoSendQuota';
  } catch (error) {
    reason = reasonOf(error);
  }
  logger.warn('SES send quota not read: sending at the fallback rate', { reason, ratePerSecond: FALLBACK_SEND_RATE });
  return { ratePerSecond: FALLBACK_SEND_RATE, source: 'fallback', reason };
}

let processBucket: Promise<TokenBucket> | undefined;

/**
 * The bucket every sender of this process shares (a bulk job's lanes), sized from SES's send rate,
 * which is read once, on first use; a failed read falls back to `FALLBACK_SEND_RATE` for the process's life.
 */
export function sendRateBucket(client?: SESv2Client): Promise<TokenBucket> {
  return (processBucket ??= readSendRate(client).then(({ ratePerSecond }) => new TokenBucket({ ratePerSecond })));
}

/** Forgets the process's bucket, so that the next `sendRateBucket` reads the quota again (tests). */
export function forgetSendRateBucket(): void {
  processBucket = undefined;
}

/** A mailer whose every attempt (a retry too) first waits for a token of `bucket`. */
export function rateLimited(mailer: Mailer, bucket: Pace): Mailer {
  return {
    async send(message) {
      await bucket.take();
      await mailer.send(message);
    },
  };
}
