// First: it decides the X-Ray SDK's mode before the Tracer loads that SDK.
import './xray-context-mode';
import { Tracer } from '@aws-lambda-powertools/tracer';

/**
 * Powertools Tracer (X-Ray): the AWS SDK clients are captured, so each call is a subsegment of the
 * invocation. It switches itself off outside Lambda (the local stack, tests, the CLI).
 */
export const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'management-api' });
