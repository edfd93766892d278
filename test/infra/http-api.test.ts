import { defaultRouteGroup, defaultSubpaths, resolveRoutes, type ResourceGroup } from '../../shared/edge/api/routes';
import { throttleDefaults } from '../../infra/cloud/settings';
import { getAtt, synthesizedStack } from './stack-template';
import { resolveIntrinsic } from './synth';

/** The HTTP API of the template: one integration per function, every route of the catalogue, permissions, throttling, the stage. */

const { template, functionId, singleId } = synthesizedStack();

describe('HTTP API', () => {
  const routesByKey = () =>
    new Map(Object.values(template().findResources('AWS::ApiGatewayV2::Route')).map((r) => [r.Properties.RouteKey as string, r.Properties]));
  const integrations = () => template().findResources('AWS::ApiGatewayV2::Integration');
  const integrationTarget = (group: ResourceGroup) => {
    const [id] = Object.entries(integrations()).find(
      ([, integration]) => JSON.stringify(integration.Properties.IntegrationUri) === JSON.stringify(getAtt(functionId(group))),
    )!;
    return { 'Fn::Join': ['', ['integrations/', { Ref: id }]] };
  };

  test('each group has one Lambda proxy integration with payload format 2.0', () => {
    const groupsWithRoutes = new Set([...resolveRoutes(defaultSubpaths).map((r) => r.group), defaultRouteGroup]);
    expect(Object.keys(integrations())).toHaveLength(groupsWithRoutes.size);
    for (const group of groupsWithRoutes) {
      template().hasResourceProperties('AWS::ApiGatewayV2::Integration', {
        IntegrationType: 'AWS_PROXY',
        IntegrationUri: getAtt(functionId(group)),
        PayloadFormatVersion: '2.0',
      });
    }
  });

  test.each(resolveRoutes(defaultSubpaths).map((route) => [route.routeKey, route.group] as const))(
    '%s is routed to the %s function without a gateway authorizer',
    (routeKey, group) => {
      expect(routesByKey().get(routeKey)).toEqual({
        ApiId: { Ref: singleId('AWS::ApiGatewayV2::Api') },
        RouteKey: routeKey,
        AuthorizationType: 'NONE',
        Target: integrationTarget(group),
      });
    },
  );

  test('API Gateway may invoke each function through any route: one permission per function, not per route', () => {
    const permissions = Object.values(template().findResources('AWS::Lambda::Permission')).filter(
      (p) => p.Properties.Principal === 'apigateway.amazonaws.com',
    );
    const groupsWithRoutes = new Set([...resolveRoutes(defaultSubpaths).map((r) => r.group), defaultRouteGroup]);
    const api = `arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${singleId('AWS::ApiGatewayV2::Api')}>`;
    const sources = permissions.map((p) => resolveIntrinsic(p.Properties.SourceArn));
    // One for each function's routes, and one for `$default` (see below).
    expect(sources.filter((arn) => arn === `${api}/*/*/*`)).toHaveLength(groupsWithRoutes.size);
    expect(permissions).toHaveLength(groupsWithRoutes.size + 1);
  });

  test('$default goes to the default group, which API Gateway may invoke for it', () => {
    expect(routesByKey().get('$default')?.Target).toEqual(integrationTarget(defaultRouteGroup));
    expect(routesByKey().size).toBe(resolveRoutes(defaultSubpaths).length + 1);
    const sourceArns = Object.values(template().findResources('AWS::Lambda::Permission'))
      .filter((p) => JSON.stringify(p.Properties.FunctionName) === JSON.stringify(getAtt(functionId(defaultRouteGroup))))
      .map((p) => resolveIntrinsic(p.Properties.SourceArn));
    // $default is invoked as <api>/<stage>/$default: only a two-segment pattern matches it.
    expect(sourceArns).toContain(`arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${singleId('AWS::ApiGatewayV2::Api')}>/*/$default`);
  });

  test('the token endpoint has its own throttling, every other route its group\'s (bulk reads the stage\'s); the stage waits for the routes', () => {
    const stage = template().findResources('AWS::ApiGatewayV2::Stage')[singleId('AWS::ApiGatewayV2::Stage')]!;
    // CloudFormation's RouteSettings keys are PascalCase (a raw JSON property: CDK does not convert it).
    const settings = stage.Properties.RouteSettings as Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }>;
    const routes = resolveRoutes(defaultSubpaths);
    const polled = routes.filter((route) => route.group === 'bulk' && route.method === 'GET');
    expect(polled.map((route) => route.id).sort()).toEqual(['bulk.failedRows', 'bulk.job']);
    expect(Object.keys(settings).sort()).toEqual(routes.filter((route) => !polled.includes(route)).map((route) => route.routeKey).sort());
    for (const route of routes.filter((route) => !polled.includes(route))) {
      const expected = route.id === 'auth.token' ? throttleDefaults.token : throttleDefaults[route.group]!;
      expect([route.routeKey, settings[route.routeKey]]).toEqual([
        route.routeKey,
        { ThrottlingRateLimit: expected.rateLimit, ThrottlingBurstLimit: expected.burstLimit },
      ]);
    }
    expect(settings['POST /auth/realms/{realm}/protocol/openid-connect/token']).toEqual({ ThrottlingRateLimit: 40, ThrottlingBurstLimit: 80 });
    const routeIds = Object.keys(template().findResources('AWS::ApiGatewayV2::Route'));
    expect(stage.DependsOn).toEqual(expect.arrayContaining(routeIds));
  });

  test('the $default stage deploys automatically, is throttled and writes JSON access logs', () => {
    const stage = template().findResources('AWS::ApiGatewayV2::Stage')[singleId('AWS::ApiGatewayV2::Stage')]!.Properties;
    expect(stage).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [expect.any(String), 'Arn'] } },
    });
    expect(JSON.parse(stage.AccessLogSettings.Format as string)).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      routeKey: '$context.routeKey',
    });
  });
});
