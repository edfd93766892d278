import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDirs } from '../../../test/support/temp-dirs';

/**
 * The package as an integrator gets it from `npm pack`: unpacked into a project of its own (its one
 * dependency linked in, as `npm install` would put it) and used from an ES module, by Node and by a
 * strict `tsc` with Node's own module resolution (`nodenext`), the setting of a Node ESM project.
 */
const root = join(__dirname, '../../..');
const newDir = tempDirs('client-package-');

describe('the packed client', () => {
  let project: string;

  beforeAll(() => {
    project = newDir();
    const packed = newDir();
    execFileSync('npm', ['pack', '--silent', '--pack-destination', packed], { cwd: join(root, 'clients/typescript'), stdio: 'pipe' });
    const tarball = readdirSync(packed).find((name) => name.endsWith('.tgz'))!;
    const target = join(project, 'node_modules/@agent-platform/client');
    mkdirSync(target, { recursive: true });
    execFileSync('tar', ['-xzf', join(packed, tarball), '-C', target, '--strip-components=1']);
    for (const dependency of ['openapi-fetch', 'openapi-typescript-helpers', '@types/node', 'undici-types']) {
      mkdirSync(dirname(join(project, 'node_modules', dependency)), { recursive: true });
      symlinkSync(join(root, 'node_modules', dependency), join(project, 'node_modules', dependency), 'dir');
    }
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  }, 120_000);

  it('loads as an ES module with its exports', () => {
    writeFileSync(join(project, 'load.mjs'), "import * as client from '@agent-platform/client';\nconsole.log(Object.keys(client).sort().join(' '));\n");

    const exported = execFileSync(process.execPath, ['load.mjs'], { cwd: project, encoding: 'utf8' });

    expect(exported.trim().split(' ')).toEqual(expect.arrayContaining(['createApiClient', 'paginate', 'RealmSession', 'ApiError', 'ok']));
  });

  it("type-checks a consumer against its declarations under Node's ESM resolution", () => {
    writeFileSync(
      join(project, 'consumer.ts'),
      [
        "import { ApiError, createApiClient, ok, paginate, RealmSession } from '@agent-platform/client';",
        "const session = RealmSession.fromOfflineToken({ apiUrl: 'https://api.example.com', realm: 'acme', clientId: 'console' }, 'token');",
        "const api = createApiClient({ apiUrl: 'https://api.example.com', auth: session });",
        'export async function emails(orgUUID: string): Promise<string[]> {',
        '  const found: string[] = [];',
        "  for await (const user of paginate(api, '/user-management/org/{orgUUID}/users', { params: { path: { orgUUID } } })) found.push(user.email);",
        '  try {',
        "    const me = await ok(api.GET('/user-management/org/{orgUUID}/users/identity-provider', { params: { path: { orgUUID } } }));",
        '    found.push(me.email);',
        '  } catch (error) {',
        '    if (error instanceof ApiError) found.push(`${error.status} ${error.code ?? ""}`);',
        '  }',
        '  return found;',
        '}',
        '',
      ].join('\n'),
    );
    const tsconfig = { compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: ['node'], noImplicitAny: true }, files: ['consumer.ts'] };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig));

    const checked = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: project, encoding: 'utf8' });

    expect({ status: checked.status, errors: checked.stdout }).toEqual({ status: 0, errors: '' });
  }, 60_000);
});
