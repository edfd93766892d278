import { Duration, Stack } from 'aws-cdk-lib';
import { ComparisonOperator, TreatMissingData, type IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { ConfigurationSet, EmailIdentity, Identity } from 'aws-cdk-lib/aws-ses';
import { Construct } from 'constructs';
import { envNames } from '../../shared/config';

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
export function bindMailer(fn: LambdaFunction, mailer: Mailer, alarmAction?: IAlarmAction): void {
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['ses:SendEmail'],
      resources: [mailer.identity.emailIdentityArn, mailer.configurationSetArn],
    }),
  );
  fn.addEnvironment(envNames.mailFrom, mailer.senderEmail);
  fn.addEnvironment(envNames.sesConfigurationSet, mailer.configurationSet.configurationSetName);

  // A failed send never fails the request (shared/mail/mailer.ts logs it instead): count those lines
  // and alarm on them, so lost welcome and reactivation e-mails are seen.
  const failures = new MetricFilter(fn, 'MailNotSentFilter', {
    logGroup: fn.logGroup,
    filterPattern: FilterPattern.literal('{ $.metric = "MailNotSent" }'),
    metricNamespace: 'ManagementApi',
    metricName: 'MailNotSent',
    metricValue: '$.value',
  });
  const alarm = failures.metric({ period: Duration.minutes(5), statistic: 'Sum' }).createAlarm(fn, 'MailNotSentAlarm', {
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
    alarmDescription: 'A welcome or reactivation e-mail could not be sent (see the log line "mail not sent")',
  });
  if (alarmAction) alarm.addAlarmAction(alarmAction);
}
