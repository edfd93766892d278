import { Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { ConfigurationSet, EmailIdentity, Identity } from 'aws-cdk-lib/aws-ses';
import { Construct } from 'constructs';

export interface MailerProps {
  /** The sender address; SES mails a verification link to it on first deploy. */
  readonly senderEmail: string;
}

/** The SES sender identity and the configuration set every message is sent through. */
export class Mailer extends Construct {
  readonly senderEmail: string;
  readonly configurationSet: ConfigurationSet;
  readonly identity: EmailIdentity;

  constructor(scope: Construct, id: string, props: MailerProps) {
    super(scope, id);
    this.senderEmail = props.senderEmail;
    this.configurationSet = new ConfigurationSet(this, 'ConfigurationSet', { reputationMetrics: true });
    this.identity = new EmailIdentity(this, 'Sender', {
      identity: Identity.email(props.senderEmail),
      configurationSet: this.configurationSet,
    });
  }

  get configurationSetArn(): string {
    return Stack.of(this).formatArn({
      service: 'ses',
      resource: 'configuration-set',
      resourceName: this.configurationSet.configurationSetName,
    });
  }
}

/** Lets the function send mail as the sender, through the configuration set; sets MAIL_FROM and SES_CONFIGURATION_SET. */
export function bindMailer(fn: LambdaFunction, mailer: Mailer): void {
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['ses:SendEmail'],
      resources: [mailer.identity.emailIdentityArn, mailer.configurationSetArn],
    }),
  );
  fn.addEnvironment('MAIL_FROM', mailer.senderEmail);
  fn.addEnvironment('SES_CONFIGURATION_SET', mailer.configurationSet.configurationSetName);
}
