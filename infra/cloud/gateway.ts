import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { CfnStage, HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { defaultRouteGroup, type ResourceGroup, type Route } from '../../shared/edge/api/routes';
import { alarmAtLeast } from './monitoring';
import type { StackSettings, Throttle } from './settings';

export interface GatewayProps {
  /** The stage's default limits: `$default` and routes of groups without their own. */
  readonly throttle: Throttle;
  /** Limits of the token endpoint's route and of each group's routes. */
  readonly routeThrottles: StackSettings['routeThrottles'];
  /** Route id of the token endpoint (shared/edge/api/). */
  readonly tokenRouteId: string;
  readonly errorRatePercent: number;
  readonly latencyP99Ms: number;
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
  readonly stage: HttpStage;
  private readonly props: GatewayProps;

  constructor(scope: Construct, id: string, props: GatewayProps) {
    super(scope, id);
    this.props = props;
    this.api = new HttpApi(this, 'Api', {
      description: 'Management API: agent configuration, user administration and tokens',
      createDefaultStage: false,
    });
    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH });
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(accessLogFields)),
      },
    });

    // The share of requests answered 5xx, not a count: one failure in a quiet hour and a steady
    // trickle under load are different pages. No request in the period is no data, not an alarm.
    const period = Duration.minutes(5);
    const errorRate = new MathExpression({
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: {
        requests: this.api.metricCount({ period, statistic: 'Sum' }),
        errors: this.api.metricServerError({ period, statistic: 'Sum' }),
      },
      period,
      label: '5xx answers (% of requests)',
    });
    alarmAtLeast(
      this,
      'ServerErrorRateAlarm',
      errorRate,
      `At least ${props.errorRatePercent}% of the management API's requests were answered 5xx in 5 minutes`,
      props.errorRatePercent,
    );
    // p99 over 15 minutes, not one period: a single bulk-create that waits its 25 s is not a page.
    this.api.metricLatency({ period, statistic: 'p99' }).createAlarm(this, 'LatencyP99Alarm', {
      threshold: props.latencyP99Ms,
      evaluationPeriods: 3,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: `The management API's p99 latency stayed above ${props.latencyP99Ms} ms for 15 minutes`,
    });
  }

  /**
   * One route per entry of the route table, integrated with its group's function, and `$default`
   * for everything else, served by the default group (whose router answers the API's standard 404 body).
   */
  addRoutes(routes: readonly Route[], functionOf: (group: ResourceGroup) => IFunction): void {
    const integrations = new Map<ResourceGroup, HttpLambdaIntegration>();
    const integrationOf = (group: ResourceGroup) => {
      let integration = integrations.get(group);
      if (!integration) {
        // One invoke permission per function for the whole API rather than one per route: a route's
        // permission would cost a CloudFormation resource each (the stack's limit is 500).
        integration = new HttpLambdaIntegration(`${group}-integration`, functionOf(group), { scopePermissionToRoute: false });
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
    // `$default` is invoked as <api>/<stage>/$default, which the integrations' <api>/*/*/* does not match.
    functionOf(defaultRouteGroup).addPermission('InvokeForDefaultRoute', {
      principal: new ServicePrincipal('apigateway.amazonaws.com'),
      sourceArn: Stack.of(this).formatArn({ service: 'execute-api', resource: this.api.apiId, resourceName: '*/$default' }),
    });
    for (const route of created) {
      Validations.of(route).acknowledge({ id: 'AwsSolutions-APIG4', reason: noGatewayAuthorizer });
    }
    this.throttleRoutes(routes, created);
  }

  /**
   * Per-route limits (stage route settings, keyed by route key): the token endpoint its own, every
   * other route its group's, except the bulk group's reads (a job's status, its failed rows), which
   * clients poll and which take the stage's default. CloudFormation refuses settings for a route key that does not exist yet,
   * so the stage waits for the routes.
   */
  private throttleRoutes(routes: readonly Route[], created: readonly HttpRoute[]): void {
    const { routeThrottles, tokenRouteId } = this.props;
    // A raw JSON property, which CDK passes as written: CloudFormation's RouteSettings keys are PascalCase.
    const settings: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};
    for (const route of routes) {
      const limits = limitsOf(route, tokenRouteId, routeThrottles);
      if (limits) settings[route.routeKey] = { ThrottlingRateLimit: limits.rateLimit, ThrottlingBurstLimit: limits.burstLimit };
    }
    if (!routes.some((route) => route.id === tokenRouteId)) throw new Error(`No route has the token endpoint's id "${tokenRouteId}"`);
    (this.stage.node.defaultChild as CfnStage).routeSettings = settings;
    for (const route of created) this.stage.node.addDependency(route);
  }
}

/** A route's limits: the token endpoint's, its group's, or none (the stage's default). */
function limitsOf(route: Route, tokenRouteId: string, routeThrottles: StackSettings['routeThrottles']): Throttle | undefined {
  if (route.id === tokenRouteId) return routeThrottles.token;
  if (route.group === 'bulk' && route.method === 'GET') return undefined;
  return routeThrottles[route.group];
}
