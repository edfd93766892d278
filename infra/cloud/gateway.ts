import { Duration, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { ComparisonOperator, TreatMissingData, type IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { defaultRouteGroup, type ResourceGroup, type Route } from '../../shared/routes';

export interface GatewayProps {
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  readonly alarmAction?: IAlarmAction;
}

/** API Gateway access-log fields, one JSON object per request. */
const accessLogFields = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  httpMethod: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
};

const noGatewayAuthorizer =
  'Deliberately no gateway authorizer: the token endpoint and JWKS are public by the OAuth contract, ' +
  'the $default route only answers 404, and every other route verifies our own ES256 access token ' +
  '(issued by the auth function with a KMS key, not by Cognito) inside its function with ' +
  'aws-jwt-verify, then loads the caller from the table so a deleted user loses access at once.';

/** The HTTP API (payload format 2.0): its `$default` stage with throttling and access logs. */
export class Gateway extends Construct {
  readonly api: HttpApi;

  constructor(scope: Construct, id: string, props: GatewayProps) {
    super(scope, id);
    this.api = new HttpApi(this, 'Api', {
      description: 'Management API: agent configuration, user administration and tokens',
      createDefaultStage: false,
    });
    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH });
    this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(accessLogFields)),
      },
    });

    const serverErrors = this.api
      .metricServerError({ period: Duration.minutes(5), statistic: 'Sum' })
      .createAlarm(this, 'ServerErrorsAlarm', {
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: 'The management API answered 5xx',
      });
    if (props.alarmAction) serverErrors.addAlarmAction(props.alarmAction);
  }

  /**
   * One route per entry of the route table, integrated with its group's function, and `$default`
   * for everything else, served by the default group (whose router answers the spec's 404 body).
   */
  addRoutes(routes: readonly Route[], functionOf: (group: ResourceGroup) => IFunction): void {
    const integrations = new Map<ResourceGroup, HttpLambdaIntegration>();
    const integrationOf = (group: ResourceGroup) => {
      let integration = integrations.get(group);
      if (!integration) {
        integration = new HttpLambdaIntegration(`${group}-integration`, functionOf(group));
        integrations.set(group, integration);
      }
      return integration;
    };

    const created = routes.map(
      (route) =>
        new HttpRoute(this, `Route-${route.id}`, {
          httpApi: this.api,
          routeKey: HttpRouteKey.with(route.fullPath, HttpMethod[route.method]),
          integration: integrationOf(route.group),
        }),
    );
    created.push(
      new HttpRoute(this, 'Route-$default', {
        httpApi: this.api,
        routeKey: HttpRouteKey.DEFAULT,
        integration: integrationOf(defaultRouteGroup),
      }),
    );
    for (const route of created) {
      Validations.of(route).acknowledge({ id: 'AwsSolutions-APIG4', reason: noGatewayAuthorizer });
    }
  }
}
