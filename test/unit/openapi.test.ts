import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultSubpaths, resolveRoutes } from '../../shared/edge/api/routes';
import { openApiDocument } from '../../shared/edge/openapi/document';
import { bulkCreateColumns, permissionColumns } from '../../shared/app/bulk/bulk.limits';

type Json = Record<string, unknown>;
const serverUrl = 'https://management.agents.test';
const subpaths = { generative: 'gen-ai', user: 'admin' };
// The fuller of the two variants: with a realm, the document also has the OAuth2 authorization code flow.
const document = openApiDocument(subpaths, serverUrl, { realm: 'acme' });
const withoutRealm = openApiDocument(subpaths, serverUrl);
const paths = document.paths as Record<string, Record<string, Json>>;
const descriptionOf = (path: string, method: string) => String(paths[path]![method]!.description);

describe('the OpenAPI document', () => {
  it('passes redocly lint with its recommended rules: no errors, no warnings', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'openapi-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const run = () =>
      execFileSync('npx', ['redocly', 'lint', file, '--config', join(__dirname, '../../redocly.yaml'), '--format', 'json'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    let output: string;
    try {
      output = run();
    } catch (error) {
      throw new Error(`redocly lint failed:\n${(error as { stdout?: string }).stdout ?? String(error)}`, { cause: error });
    }
    const report = JSON.parse(output.slice(output.indexOf('{'))) as { totals: { errors: number; warnings: number }; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('has every route of the route table, under the configured subpaths', () => {
    const documented = Object.entries(paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(resolveRoutes(subpaths).map((route) => route.routeKey).sort());
    expect(Object.keys(paths).some((path) => path.startsWith(`/${defaultSubpaths.user}/`))).toBe(false);
  });

  it('documents query constraints and defaults from the zod schemas', () => {
    const list = paths['/admin/org/{orgUUID}/users']!.get!;
    const linesPerPage = (list.parameters as Json[]).find((parameter) => parameter.name === 'linesPerPage');
    expect(linesPerPage).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 5 } });
  });

  it('documents request bodies as zod accepts them, strict where zod is', () => {
    const create = paths['/gen-ai/org/{orgUUID}/env/{envUUID}/bot/{botUUID}/agents']!.post!;
    const schema = ((create.requestBody as Json).content as Record<string, { schema: Json }>)['application/json']!.schema;
    expect(schema).toMatchObject({ type: 'object', additionalProperties: false, required: expect.arrayContaining(['role', 'goal', 'persona']) });
  });

  it('documents the standard, validation and OAuth error bodies', () => {
    const responsesOf = (path: string, method: string) => paths[path]![method]!.responses as Record<string, Json>;
    const update = responsesOf('/admin/org/{orgUUID}/users/{userId}', 'put');
    expect(update['404']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } });
    expect(update['422']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/ValidationErrorBody' } } } });
    const token = responsesOf('/auth/realms/{realm}/protocol/openid-connect/token', 'post');
    expect(token['400']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/OAuthError' } } } });
  });

  it('says how to get a token in three steps, with curl and with the Authorize button, and cites no source file', () => {
    const description = String((document.info as Json).description);
    const steps = description.split('\n').filter((line) => /^\d\. /.test(line));
    expect(steps.map((step) => step.slice(0, 3))).toEqual(['1. ', '2. ', '3. ']);
    expect(steps[1]).toContain(`curl -s ${serverUrl}/auth/realms/acme/protocol/openid-connect/token -d grant_type=password -d client_id=<client id>`);
    expect(steps[1]).toContain('**Authorize**');
    expect(steps[2]).toContain('Authorization: Bearer <access_token>');
    expect(String((withoutRealm.info as Json).description)).toContain('`/docs?realm=<realm>`');
    const everyDescription = JSON.stringify(document).match(/"description":"(?:[^"\\]|\\.)*"/g) ?? [];
    expect(everyDescription.filter((text) => /\b(shared|functions|infra)\/|\.ts\b/.test(text))).toEqual([]);
  });

  it("with a realm, signs in on that realm's sign-in page (OAuth2 authorization code flow, nothing else); without, offers the bearer token only", () => {
    const schemes = (document.components as Json).securitySchemes as Record<string, Json>;
    const realmUrl = `${serverUrl}/auth/realms/acme/protocol/openid-connect`;
    expect(schemes.oauth2).toEqual({
      type: 'oauth2',
      description: expect.stringContaining('PKCE'),
      flows: {
        authorizationCode: {
          authorizationUrl: `${realmUrl}/auth`,
          tokenUrl: `${realmUrl}/token`,
          refreshUrl: `${realmUrl}/token`,
          scopes: { openid: expect.any(String) },
        },
      },
    });
    expect(schemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(paths['/admin/org/{orgUUID}/users/identity-provider']!.get!.security).toEqual([{ bearerAuth: [] }, { oauth2: [] }]);

    expect(Object.keys((withoutRealm.components as Json).securitySchemes as Json)).toEqual(['bearerAuth']);
    expect(JSON.stringify(withoutRealm.paths)).not.toContain('"oauth2":[]');
    expect(JSON.stringify(schemes)).not.toContain('{realm}');
  });

  it('lists the columns, rules and an example file of the bulk files', () => {
    for (const [path, method] of [['/admin/org/{orgUUID}/users/bulk-create', 'post'], ['/admin/org/{orgUUID}/users/bulk-uploads', 'post']] as const) {
      const description = descriptionOf(path, method);
      // Each column is explained in a list item of its own (EnvironmentUuid and EnvironmentName share one).
      for (const column of bulkCreateColumns) expect(description).toMatch(new RegExp(`^- (\`\\w+\`, )?\`${column}\`(, \`\\w+\`)?: `, 'm'));
      expect(description).toContain(`\`${bulkCreateColumns.join('`, `')}\``);
      expect(description.match(/^\d\. /gm)).toHaveLength(7);
    }
    expect(descriptionOf('/admin/org/{orgUUID}/users/bulk-create', 'post')).toContain(`\`\`\`csv\n${bulkCreateColumns.join(',')}\n`);
    const grant = descriptionOf('/admin/org/{orgUUID}/users/bulk-permissions', 'post');
    expect(grant).toContain(`\`\`\`csv\n${permissionColumns.join(',')}\n`);
    expect(grant).toContain('`BOT_REQUIRED`');
    expect(descriptionOf('/admin/org/{orgUUID}/users/bulk-permissions', 'delete')).toContain('`GRANT_NOT_FOUND`');
  });

  it('documents the CSV of failed rows and the ETag of agent reads', () => {
    const failedRows = paths['/admin/org/{orgUUID}/users/bulk-jobs/{jobId}/failed-rows']!.get!.responses as Record<string, Json>;
    expect(Object.keys(failedRows['200']!.content as Json)).toEqual(['text/csv']);
    const agent = paths['/gen-ai/org/{orgUUID}/env/{envUUID}/bot/{botUUID}/agents/{agentUUID}']!.get!.responses as Record<string, Json>;
    expect(agent['200']!.headers).toHaveProperty('ETag');
  });
});
