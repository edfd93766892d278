import { Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { ConfigurationSet, EmailIdentity, Identity } from 'aws-cdk-lib/aws-ses';
import { Construct } from 'constructs';
import { envNames } from '../../shared/kernel/config';
import { alarmAtLeast, appMetric } from './monitoring';

export interface MailerProps {
  /** The sender address. */
  readonly senderEmail: string;
  /**
   * An existing, verified SES identity (the address or its domain) to send as. Unset, the stack
   * creates an e-mail identity for the sender, and SES mails a verification link to it on deploy.
   */
  readonly importedIdentity?: string;
}

/** The SES sender identity and the configuration set every message is sent through. */
export class Mailer extends Construct {
  readonly senderEmail: string;
  readonly configurationSet: ConfigurationSet;
  /** Created by this stack; undefined when an existing identity is used. */
  readonly identity?: EmailIdentity;
  /** The ARN SES authorizes sending against (`identity/<address or domain>`). */
  readonly identityArn: string;

  constructor(scope: Construct, id: string, props: MailerProps) {
    super(scope, id);
    this.senderEmail = props.senderEmail;
    this.configurationSet = new ConfigurationSet(this, 'ConfigurationSet', { reputationMetrics: true });
    if (props.importedIdentity) {
      this.identityArn = Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: props.importedIdentity });
    } else {
      this.identity = new EmailIdentity(this, 'Sender', {
        identity: Identity.email(props.senderEmail),
        configurationSet: this.configurationSet,
      });
      this.identityArn = this.identity.emailIdentityArn;
    }
  }

  get configurationSetArn(): string {
    return Stack.of(this).formatArn({
      service: 'ses',
      resource: 'configuration-set',
      resourceName: this.configurationSet.configurationSetName,
    });
  }

  /** `identity/*` of this account and region: where SES's sandbox looks up the recipients. */
  get anyIdentityArn(): string {
    return Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: '*' });
  }
}

/**
 * Lets the function send mail as the sender, through the configuration set; sets MAIL_FROM and
 * SES_CONFIGURATION_SET; alarms when a send fails (the code counts `MailsFailed` and goes on, so a
 * lost welcome or reactivation e-mail would otherwise go unseen).
 */
export function bindMailer(fn: LambdaFunction, mailer: Mailer, service: string, options: { readsSendQuota?: boolean } = {}): void {
  fn.addToRolePolicy(new PolicyStatement({ actions: ['ses:SendEmail'], resources: [mailer.identityArn, mailer.configurationSetArn] }));
  // In the SES sandbox (every new account) SendEmail is also authorized against each recipient's
  // identity, so the sender identity alone is refused there. Least privilege still holds: these
  // identities may only be the recipients of mail whose From is our sender (ses:FromAddress), so
  // the role cannot send as any other identity of the account. Out of the sandbox this statement is
  // simply not needed; keeping it means leaving the sandbox needs no redeploy.
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['ses:SendEmail'],
      resources: [mailer.anyIdentityArn],
      conditions: { StringEquals: { 'ses:FromAddress': mailer.senderEmail } },
    }),
  );
  // The send quota (GetAccount's SendQuota.MaxSendRate), read once per run by a function that sends
  // many (the bulk worker) to pace its sends.
  // SES authorizes GetAccount on no resource but "*"; it reads the account's sending settings only.
  if (options.readsSendQuota) {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['ses:GetAccount'], resources: ['*'] }));
    Validations.of(fn.role!).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'ses:GetAccount (the send quota) supports no resource-level permission; it reads sending settings only.',
    });
  }
  Validations.of(fn.role!).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
    reason:
      "SES sandbox: recipients' identities are authorized too and are not known in advance; the statement " +
      'is conditioned on ses:FromAddress being our sender, so it sends as no other identity.',
  });
  fn.addEnvironment(envNames.mailFrom, mailer.senderEmail);
  fn.addEnvironment(envNames.sesConfigurationSet, mailer.configurationSet.configurationSetName);

  alarmAtLeast(
    fn,
    'MailsFailedAlarm',
    appMetric(fn, 'MailsFailed', service),
    `The ${service} function could not send a welcome or reactivation e-mail (metric MailsFailed; its log says why)`,
  );
}
