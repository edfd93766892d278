import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readCsv, type CsvLayout, type CsvLimits } from '../../shared/app/bulk/csv-file';
import { catalogue } from '../../shared/edge/api/catalogue';
import { bulkCreateExampleFile, bulkPermissionsExampleFile } from '../../shared/edge/api/examples';
import { defaultSubpaths } from '../../shared/edge/api/routes';
import { openApiDocument } from '../../shared/edge/openapi/document';
import { bulkCreateLayout, bulkCreateLimits, bulkPermissionLimits, permissionColumns } from '../../shared/app/bulk/bulk.limits';

/** Every request body of the document has an example that its schema, and the route's zod schema, accept. */

type Json = Record<string, unknown>;
const document = openApiDocument(defaultSubpaths, 'https://management.agents.test', { realm: 'acme' });
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(document, 'openapi.json');

/** A JSON pointer segment (RFC 6901). */
const segment = (text: string) => text.replaceAll('~', '~0').replaceAll('/', '~1');

interface Body {
  operationId: string;
  mediaType: string;
  pointer: string;
  example: unknown;
  hasExample: boolean;
}

const bodies: Body[] = Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
  Object.entries(item).flatMap(([method, operation]) => {
    const content = ((operation.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
    return Object.entries(content).map(([mediaType, media]) => ({
      operationId: String(operation.operationId),
      mediaType,
      pointer: `/paths/${segment(path)}/${method}/requestBody/content/${segment(mediaType)}/schema`,
      example: media.example,
      hasExample: Object.hasOwn(media, 'example'),
    }));
  }),
);
/** The request schema an operation is validated with: its body, or the form its handler reads. */
const requestSchemaOf = (id: string) => {
  const request = catalogue.find((operation) => operation.id === id)?.request;
  const make = request?.form ?? request?.body;
  if (!make) throw new Error(`${id} declares no body`);
  return make();
};

describe('request examples', () => {
  it('are there for every operation with a request body (the document has several kinds of them)', () => {
    expect(bodies.filter((body) => !body.hasExample).map((body) => body.operationId)).toEqual([]);
    expect(new Set(bodies.map((body) => body.mediaType))).toEqual(
      new Set(['application/json', 'application/yaml', 'application/scim+json', 'application/x-www-form-urlencoded', 'multipart/form-data']),
    );
    expect(bodies.map((body) => body.operationId)).toEqual(expect.arrayContaining(['agents.create', 'agents.update', 'users.create', 'bulk.create', 'auth.token']));
  });

  it.each(bodies.map((body) => [body.operationId, body.mediaType, body] as const))('%s (%s) matches its schema in the document', (_id, _type, body) => {
    const validate = ajv.compile({ $ref: `openapi.json#${body.pointer}` });
    const valid = validate(body.example);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  // The document's schema is zod's input side, without its refinements (passwords that agree, a list naming each item once).
  it.each(bodies.filter((body) => body.mediaType !== 'multipart/form-data').map((body) => [body.operationId, body] as const))(
    '%s is accepted by the schema its route validates with',
    (id, body) => {
      const schema = requestSchemaOf(id);
      const parsed = schema.safeParse(body.example);
      expect(parsed.error?.issues ?? []).toEqual([]);
    },
  );

  it('for one that is invalid, the check fails and names the field', () => {
    const agent = bodies.find((body) => body.operationId === 'agents.create')!;
    const validate = ajv.compile({ $ref: `openapi.json#${agent.pointer}` });
    expect(validate({ ...(agent.example as Json), persona: { uuid: 'not-a-uuid' } })).toBe(false);
    expect(validate.errors?.map((error) => error.instancePath)).toContain('/persona/uuid');
    expect(requestSchemaOf('agents.create').safeParse({ ...(agent.example as Json), extra: 1 }).success).toBe(false);
  });

  it.each([
    ['bulk.create', bulkCreateLayout, bulkCreateLimits, 4],
    ['bulk.grant', { columns: permissionColumns, required: ['Email', 'EnvironmentUuid', 'EnvironmentName'] }, bulkPermissionLimits, 2],
  ] as const)('%s: its example file is read by the file reader with every column', async (id, layout, limits, rowCount) => {
    const file = (bodies.find((body) => body.operationId === id)!.example as { file: string }).file;
    const rows = [];
    for await (const row of readCsv(file, layout as CsvLayout<string>, limits as CsvLimits)) rows.push(row);
    expect(rows).toHaveLength(rowCount);
    expect(rows.every((row) => row.cells.length === layout.columns.length)).toBe(true);
    expect(file).toBe(id === 'bulk.create' ? bulkCreateExampleFile : bulkPermissionsExampleFile);
  });
});
